/* XAPP dynamic-feature runtime: computes the thesis's Table 3.1 program properties online while
 * an instrumented program runs its marked region, and writes them as JSON to $XAPP_OUT at exit.
 *
 * The instrumented IR reports, per executed segment, the segment id (plus a branch decision)
 * and the addresses of the segment's loads/stores; the runtime walks the segment's static
 * instruction table and updates, per dynamic instruction:
 *   - instruction-mix counters (class and floating-point sub-class);
 *   - ILP: an ideal dataflow schedule with unit latency where an instruction waits for the SSA
 *     values and the stored memory words it reads; per aligned window of 2^5..2^16 dynamic
 *     instructions, ILP = window size / critical path (producers outside the window are ready);
 *   - per static load/store, windows of 32 dynamic instances: transactions of 128 B,
 *     stride 0, constant strides and their shared-memory bank conflicts;
 *   - reuse distance <= 2 and cold references on 128 B blocks; 128 B-block and 4 KB-page
 *     footprint;
 *   - per static branch, local-history windows of 16..1024 decisions (divergent or not);
 *   - block and branch-successor execution counts (cross-checked against clang's profiles).
 * Memory is bounded by fixed tables plus an open-addressing page map (one entry per 4 KB page
 * touched, with a lazily allocated word-granular store-timestamp shadow for ILP).
 */
#include "xapp_rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NILP 5
static const int ILP_LOG[NILP] = {5, 8, 11, 14, 16};
#define RING_LOG 16               /* = the largest ILP window: its producers are still here */
#define RING (1u << RING_LOG)
#define NBDIV 7                   /* Lbdiv windows 2^4 .. 2^10 */
#define MW 32                     /* memory window: 32 dynamic instances of a static load/store */
#define MAX_ARGS 256

static int active, initialised;
static uint64_t entries, nseq, last_seq;
static uint64_t cls_count[XAPP_NCLASS];
static uint64_t sub_count[2][XAPP_NSUB];   /* [0] single precision, [1] double */

/* ILP: depth of the last RING dynamic instructions, per window size */
static uint32_t (*ring)[NILP];
static uint64_t ilp_win[NILP], ilp_nwin[NILP];
static uint32_t ilp_cp[NILP];
static double ilp_sum[NILP];

/* Shadow frames: one slot (producer seq + 1, 0 = ready) per SSA value of each active call */
typedef struct { int32_t func; size_t base; } frame_t;
static uint64_t *slots;
static size_t slots_cap, slots_top;
static frame_t *frames;
static size_t frames_cap, nframes;
static uint64_t pending_args[MAX_ARGS], pending_ret;
static int32_t n_pending, pending_callee = -1;

/* Addresses reported by the current segment */
static uint64_t *abuf;
static int32_t an, acap;

/* Page map: 4 KB pages touched, their 32 blocks of 128 B, and the store shadow (1024 words) */
typedef struct { uint64_t key; uint32_t blocks; uint64_t *shadow; } page_t;
static page_t *pages;
static size_t pcap, pcount, nblocks_touched;
#define PCACHE 64                 /* direct-mapped cache of recent pages (arrays interleave) */
static page_t *pcache_page[PCACHE];
static uint64_t pcache_no[PCACHE];

/* Temporal locality */
static uint64_t mem_refs, cold_refs, reuse2_refs;
static uint64_t mru[3];
static int nmru;

/* Memory windows per static load/store */
typedef struct { uint64_t addr[MW]; int32_t fill; } memop_t;
static memop_t *memops;
static uint64_t mw_windows, mw_coalesced, mw_stride0, mw_noconflict, mw_const_stride;
static double mw_gmembw, mw_shmembw;

/* Branch local histories */
typedef struct { uint64_t n; int32_t first[NBDIV]; uint32_t div; } branch_t;
static branch_t *branches;
static uint64_t bd_windows[NBDIV], bd_divergent[NBDIV], bd_decisions;

/* Profile */
static uint64_t *block_count, *succ_count;
static int64_t *phi_tmp;
static int32_t phi_cap;

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) { fprintf(stderr, "xapp runtime: out of memory\n"); abort(); }
    return p;
}

static void init(void) {
    initialised = 1;
    ring = xcalloc(RING, sizeof *ring);
    acap = __xapp_max_seg_mem > 0 ? __xapp_max_seg_mem : 1;
    abuf = xcalloc((size_t)acap, sizeof *abuf);
    memops = xcalloc((size_t)__xapp_n_memops, sizeof *memops);
    branches = xcalloc((size_t)__xapp_n_branches, sizeof *branches);
    block_count = xcalloc((size_t)__xapp_n_blocks, sizeof *block_count);
    succ_count = xcalloc((size_t)__xapp_n_succ, sizeof *succ_count);
    pcap = 1024;
    pages = xcalloc(pcap, sizeof *pages);
    for (int32_t b = 0; b < __xapp_n_blocks; b++)
        if (__xapp_blocks[b].n_phis > phi_cap) phi_cap = __xapp_blocks[b].n_phis;
    phi_tmp = xcalloc((size_t)phi_cap, sizeof *phi_tmp);
}

/* ---------------------------------------------------------------- frames */

static void push_frame(int32_t f) {
    size_t n = (size_t)__xapp_funcs[f].nslots;
    if (slots_top + n > slots_cap) {
        while (slots_top + n > slots_cap) slots_cap = slots_cap ? 2 * slots_cap : 4096;
        slots = realloc(slots, slots_cap * sizeof *slots);
        if (!slots) { fprintf(stderr, "xapp runtime: out of memory\n"); abort(); }
    }
    if (nframes == frames_cap) {
        frames_cap = frames_cap ? 2 * frames_cap : 64;
        frames = realloc(frames, frames_cap * sizeof *frames);
        if (!frames) { fprintf(stderr, "xapp runtime: out of memory\n"); abort(); }
    }
    memset(slots + slots_top, 0, n * sizeof *slots);
    frames[nframes].func = f;
    frames[nframes].base = slots_top;
    nframes++;
    slots_top += n;
}

static void pop_frame(void) {
    nframes--;
    slots_top = frames[nframes].base;
}

/* ---------------------------------------------------------------- page map */

static page_t *page_get(uint64_t page) {
    size_t c = (size_t)(page & (PCACHE - 1));
    if (pcache_page[c] && pcache_no[c] == page) return pcache_page[c];
    if (2 * (pcount + 1) > pcap) {   /* grow at half load: entries move, the cache is void */
        size_t ncap = 2 * pcap;
        page_t *np = xcalloc(ncap, sizeof *np);
        for (size_t i = 0; i < pcap; i++) {
            if (!pages[i].key) continue;
            size_t j = (size_t)((pages[i].key * 0x9E3779B97F4A7C15ull) >> 17) & (ncap - 1);
            while (np[j].key) j = (j + 1) & (ncap - 1);
            np[j] = pages[i];
        }
        free(pages);
        pages = np;
        pcap = ncap;
        memset(pcache_page, 0, sizeof pcache_page);
    }
    uint64_t key = page + 1;
    size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & (pcap - 1);
    while (pages[i].key && pages[i].key != key) i = (i + 1) & (pcap - 1);
    if (!pages[i].key) { pages[i].key = key; pcount++; }
    pcache_no[c] = page;
    pcache_page[c] = &pages[i];
    return &pages[i];
}

static void touch_block(uint64_t addr) {
    page_t *pg = page_get(addr >> 12);
    uint32_t bit = 1u << ((addr >> 7) & 31);
    if (!(pg->blocks & bit)) { pg->blocks |= bit; nblocks_touched++; }
}

/* ---------------------------------------------------------------- ILP */

static inline void dep(uint64_t p, uint64_t s, uint32_t mx[NILP]) {
    if (!p) return;
    p -= 1;
    uint64_t x = p ^ s;                          /* same window of 2^L iff x >> L == 0 */
    if (x >> RING_LOG) return;                   /* other 2^16 window: other window for all */
    const uint32_t *d = ring[p & (RING - 1)];
    /* windows nest: the same-window sizes are the largest ones, down to the first that differs */
    for (int k = NILP - 1; k >= 0 && !(x >> ILP_LOG[k]); k--)
        mx[k] = d[k] > mx[k] ? d[k] : mx[k];
}

static void shadow_deps(uint64_t addr, int32_t size, uint64_t s, uint32_t mx[NILP]) {
    for (uint64_t w = addr >> 2; w <= (addr + (uint64_t)size - 1) >> 2; w++) {
        page_t *pg = page_get(w >> 10);
        if (pg->shadow) dep(pg->shadow[w & 1023], s, mx);
    }
}

static void shadow_store(uint64_t addr, int32_t size, uint64_t s) {
    for (uint64_t w = addr >> 2; w <= (addr + (uint64_t)size - 1) >> 2; w++) {
        page_t *pg = page_get(w >> 10);
        if (!pg->shadow) pg->shadow = xcalloc(1024, sizeof *pg->shadow);
        pg->shadow[w & 1023] = s + 1;
    }
}

static void schedule(uint64_t s, const uint32_t mx[NILP]) {
    uint32_t *d = ring[s & (RING - 1)];
    for (int k = 0; k < NILP; k++) {
        uint64_t w = s >> ILP_LOG[k];
        if (w != ilp_win[k]) {                   /* the previous window is complete */
            if (ilp_cp[k]) { ilp_sum[k] += (double)(1u << ILP_LOG[k]) / ilp_cp[k]; ilp_nwin[k]++; }
            ilp_win[k] = w;
            ilp_cp[k] = 0;
        }
        d[k] = mx[k] + 1;
        if (d[k] > ilp_cp[k]) ilp_cp[k] = d[k];
    }
}

/* ---------------------------------------------------------------- memory features */

static void mem_window(const uint64_t *a, int32_t size) {
    mw_windows++;
    int same = 1;
    uint64_t amin = a[0];
    for (int k = 1; k < MW; k++) {
        if (a[k] != a[0]) same = 0;
        if (a[k] < amin) amin = a[k];
    }
    if (same) mw_stride0++;
    /* 128 B transactions, counted from the window's lowest address: the alignment a GPU
     * allocation would give, not the CPU allocator's (malloc'd arrays sit 16 B off a line) */
    uint64_t seg[2 * MW];
    int ns = 0;
    for (int k = 0; k < MW; k++) {
        uint64_t lo = (a[k] - amin) >> 7, hi = (a[k] + (uint64_t)size - 1 - amin) >> 7;
        seg[ns++] = lo;
        if (hi != lo) seg[ns++] = hi;
    }
    for (int i = 1; i < ns; i++) {              /* insertion sort: ns <= 64 */
        uint64_t v = seg[i];
        int j = i - 1;
        while (j >= 0 && seg[j] > v) { seg[j + 1] = seg[j]; j--; }
        seg[j + 1] = v;
    }
    int t = 1;
    for (int i = 1; i < ns; i++) t += seg[i] != seg[i - 1];
    double req = (double)MW * size;
    double g = req / (128.0 * t);
    mw_gmembw += g > 1.0 ? 1.0 : g;
    if (t <= (MW * size + 127) / 128) mw_coalesced++;
    /* constant non-zero stride: bank-conflict degree over 32 banks of 4 B */
    int64_t d = (int64_t)(a[1] - a[0]);
    if (d == 0) return;
    for (int k = 2; k < MW; k++)
        if ((int64_t)(a[k] - a[k - 1]) != d) return;
    mw_const_stride++;
    uint32_t cnt[32] = {0}, deg = 0;
    uint64_t prev = ~(uint64_t)0;
    for (int k = 0; k < MW; k++) {             /* monotonic: equal words are adjacent */
        uint64_t w = a[k] >> 2;
        if (w == prev) continue;
        prev = w;
        if (++cnt[w & 31] > deg) deg = cnt[w & 31];
    }
    mw_shmembw += 1.0 / deg;
    if (deg == 1) mw_noconflict++;
}

static void mem_access(int32_t memop, int32_t size, uint64_t addr) {
    mem_refs++;
    uint64_t blk = addr >> 7;
    page_t *pg = page_get(addr >> 12);
    uint32_t bit = 1u << (blk & 31);
    if (!(pg->blocks & bit)) {
        pg->blocks |= bit;
        nblocks_touched++;
        cold_refs++;
    } else {
        for (int i = 0; i < nmru; i++)
            if (mru[i] == blk) { reuse2_refs++; break; }
    }
    if (((addr + (uint64_t)size - 1) >> 7) != blk) touch_block(addr + (uint64_t)size - 1);
    /* LRU stack of the last 3 distinct blocks: stack distance <= 2 iff the block is in it */
    int pos = 0;
    while (pos < nmru && mru[pos] != blk) pos++;
    if (pos == nmru && nmru < 3) nmru++;
    if (pos == 3) pos = 2;
    for (int i = pos; i > 0; i--) mru[i] = mru[i - 1];
    mru[0] = blk;
    if (memop >= 0) {
        memop_t *m = &memops[memop];
        m->addr[m->fill++] = addr;
        if (m->fill == MW) { mem_window(m->addr, size); m->fill = 0; }
    }
}

/* ---------------------------------------------------------------- branches */

static void branch_decision(int32_t b, int32_t dir) {
    branch_t *br = &branches[b];
    bd_decisions++;
    for (int k = 0; k < NBDIV; k++) {
        uint64_t size = 16u << k, pos = br->n & (size - 1);
        if (pos == 0) { br->first[k] = dir; br->div &= ~(1u << k); }
        else if (dir != br->first[k]) br->div |= 1u << k;
        if (pos == size - 1) { bd_windows[k]++; bd_divergent[k] += (br->div >> k) & 1; }
    }
    br->n++;
}

/* ---------------------------------------------------------------- hooks */

void __xapp_addr(uint64_t addr) {
    if (active && an < acap) abuf[an++] = addr;
}

void __xapp_enter(int32_t f) {
    if (!active) return;
    push_frame(f);
    if (pending_callee == f) {
        uint64_t *sl = slots + frames[nframes - 1].base;
        int32_t n = n_pending < __xapp_funcs[f].nparams ? n_pending : __xapp_funcs[f].nparams;
        for (int32_t i = 0; i < n; i++) sl[i] = pending_args[i];
    }
    pending_callee = -1;
}

void __xapp_region_enter(int32_t f) {
    if (active) return;
    if (!initialised) init();
    active = 1;
    entries++;
    nframes = 0;
    slots_top = 0;
    push_frame(f);
    pending_callee = -1;
    pending_ret = 0;
    an = 0;
}

void __xapp_region_exit(void) {
    if (!active || nframes > 1) return;        /* deeper: a recursive call's own band loop */
    active = 0;
    nframes = 0;
    slots_top = 0;
}

void __xapp_seg(int32_t id, int64_t value) {
    if (!active) { an = 0; return; }
    const xapp_seg_t *sg = &__xapp_segs[id];
    if (!nframes || frames[nframes - 1].func != sg->func) push_frame(sg->func);  /* entered unseen */
    uint64_t *sl = slots + frames[nframes - 1].base;
    if (sg->after_call >= 0 && pending_ret) sl[sg->after_call] = pending_ret;
    pending_ret = 0;
    int32_t m = 0;
    for (int32_t i = 0; i < sg->n; i++) {
        const xapp_instr_t *in = &__xapp_instrs[sg->first + i];
        const int32_t *op = &__xapp_operands[in->ops];
        if (in->cls == XAPP_COPY) {
            if (in->result >= 0) sl[in->result] = (in->n_ops && op[0] >= 0) ? sl[op[0]] : 0;
            continue;
        }
        uint64_t s = nseq++;
        uint32_t mx[NILP] = {0};
        for (int32_t j = 0; j < in->n_ops; j++)
            if (op[j] >= 0) dep(sl[op[j]], s, mx);
        uint64_t addr = 0;
        if (in->mem) {
            addr = m < an ? abuf[m] : 0;
            m++;
            if (addr) {
                mem_access(in->memop, in->size, addr);
                if (in->mem & XAPP_LOAD) shadow_deps(addr, in->size, s, mx);
            }
        }
        schedule(s, mx);
        if ((in->mem & XAPP_STORE) && addr) shadow_store(addr, in->size, s);
        cls_count[in->cls]++;
        if (in->sub && (in->cls == XAPP_FP || in->cls == XAPP_DP)) sub_count[in->cls == XAPP_DP][in->sub]++;
        if (in->result >= 0) sl[in->result] = s + 1;
        if (in->callee >= 0) {
            n_pending = in->n_ops < MAX_ARGS ? in->n_ops : MAX_ARGS;
            for (int32_t j = 0; j < n_pending; j++) pending_args[j] = op[j] >= 0 ? sl[op[j]] : 0;
            pending_callee = in->callee;
        }
        last_seq = s;
    }
    an = 0;
    if (sg->end == XAPP_END_CALL) return;
    block_count[sg->block]++;
    if (sg->end == XAPP_END_RET) {
        pending_ret = last_seq + 1;
        if (nframes > 1 && frames[nframes - 1].func == sg->func) pop_frame();
        return;
    }
    if (sg->n_succ <= 0) return;
    int32_t idx = 0;
    if (sg->end == XAPP_END_CONDBR) idx = value ? 0 : 1;
    else if (sg->end == XAPP_END_SWITCH)
        for (int32_t c = 0; c < sg->n_succ - 1; c++)
            if (__xapp_cases[sg->cases + c] == value) { idx = c + 1; break; }
    succ_count[sg->succ + idx]++;
    if (sg->branch >= 0) branch_decision(sg->branch, idx);
    /* phis of the successor take the values flowing along this edge (a parallel copy) */
    const xapp_block_t *bk = &__xapp_blocks[__xapp_succ[sg->succ + idx]];
    for (int32_t p = 0; p < bk->n_phis; p++) {
        const xapp_phi_t *ph = &__xapp_phis[bk->phis + p];
        int64_t v = 0;
        for (int32_t q = 0; q < ph->n_inc; q++)
            if (__xapp_phi_inc[ph->inc + 2 * q] == sg->block) {
                int32_t src = __xapp_phi_inc[ph->inc + 2 * q + 1];
                v = src >= 0 ? (int64_t)sl[src] : 0;
                break;
            }
        phi_tmp[p] = v;
    }
    for (int32_t p = 0; p < bk->n_phis; p++) sl[__xapp_phis[bk->phis + p].dst] = (uint64_t)phi_tmp[p];
}

/* ---------------------------------------------------------------- output */

static double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

static void write_u64s(FILE *f, const char *name, const uint64_t *v, int32_t n) {
    fprintf(f, "  \"%s\": [", name);
    for (int32_t i = 0; i < n; i++) fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)v[i]);
    fprintf(f, "]");
}

__attribute__((destructor)) static void xapp_write(void) {
    const char *path = getenv("XAPP_OUT");
    if (!path || !*path) return;
    FILE *f = fopen(path, "w");
    if (!f) { fprintf(stderr, "xapp runtime: cannot write %s\n", path); return; }
    double ilp[NILP];
    for (int k = 0; k < NILP; k++) {
        uint64_t in_last = ilp_cp[k] ? nseq - (ilp_win[k] << ILP_LOG[k]) : 0;
        double sum = ilp_sum[k];
        uint64_t nw = ilp_nwin[k];
        if (in_last == (1ull << ILP_LOG[k])) { sum += (double)in_last / ilp_cp[k]; nw++; }
        /* mean over complete windows; a region shorter than one window gives its own ILP */
        ilp[k] = nw ? sum / nw : ratio((double)in_last, ilp_cp[k]);
    }
    double fp = (double)cls_count[XAPP_FP], dp = (double)cls_count[XAPP_DP], n = (double)nseq;
    fprintf(f, "{\n  \"region_entries\": %llu,\n  \"features\": {\n", (unsigned long long)entries);
    fprintf(f, "    \"ninst\": %llu,\n", (unsigned long long)nseq);
    fprintf(f, "    \"mem\": %.17g, \"ctrl\": %.17g, \"int\": %.17g, \"fp\": %.17g, \"dp\": %.17g,\n",
            ratio(cls_count[XAPP_MEM], n), ratio(cls_count[XAPP_CTRL], n),
            ratio(cls_count[XAPP_INT], n), ratio(fp, n), ratio(dp, n));
    fprintf(f, "    \"mulf\": %.17g, \"divf\": %.17g, \"sqrtf\": %.17g, \"expf\": %.17g, \"sincosf\": %.17g,\n",
            ratio(sub_count[0][XAPP_SUB_MUL], fp), ratio(sub_count[0][XAPP_SUB_DIV], fp),
            ratio(sub_count[0][XAPP_SUB_SQRT], fp), ratio(sub_count[0][XAPP_SUB_EXP], fp),
            ratio(sub_count[0][XAPP_SUB_SIN], fp));
    fprintf(f, "    \"muld\": %.17g, \"divd\": %.17g, \"sqrtd\": %.17g, \"expd\": %.17g, \"sincosd\": %.17g,\n",
            ratio(sub_count[1][XAPP_SUB_MUL], dp), ratio(sub_count[1][XAPP_SUB_DIV], dp),
            ratio(sub_count[1][XAPP_SUB_SQRT], dp), ratio(sub_count[1][XAPP_SUB_EXP], dp),
            ratio(sub_count[1][XAPP_SUB_SIN], dp));
    for (int k = 0; k < NILP; k++) fprintf(f, "    \"ilp%u\": %.17g,\n", 1u << ILP_LOG[k], ilp[k]);
    fprintf(f, "    \"ilpRate\": %.17g,\n", ratio(ilp[3], ilp[0]));
    fprintf(f, "    \"gMemBW\": %.17g, \"coalesced\": %.17g, \"stride0\": %.17g, \"shMemBW\": %.17g, "
               "\"noConflict\": %.17g,\n",
            ratio(mw_gmembw, mw_windows), ratio(mw_coalesced, mw_windows), ratio(mw_stride0, mw_windows),
            ratio(mw_shmembw, mw_windows), ratio(mw_noconflict, mw_windows));
    fprintf(f, "    \"reuseDist2\": %.17g, \"coldRef\": %.17g, \"blocks\": %llu, \"pages\": %llu,\n",
            ratio(reuse2_refs, mem_refs), ratio(cold_refs, mem_refs),
            (unsigned long long)nblocks_touched, (unsigned long long)pcount);
    for (int k = 0; k < NBDIV; k++)
        fprintf(f, "    \"Lbdiv%u\": %.17g%s\n", 16u << k, ratio(bd_divergent[k], bd_windows[k]),
                k + 1 < NBDIV ? "," : "");
    fprintf(f, "  },\n  \"counts\": {\n");
    fprintf(f, "    \"mem\": %llu, \"ctrl\": %llu, \"int\": %llu, \"fp\": %llu, \"dp\": %llu,\n",
            (unsigned long long)cls_count[XAPP_MEM], (unsigned long long)cls_count[XAPP_CTRL],
            (unsigned long long)cls_count[XAPP_INT], (unsigned long long)cls_count[XAPP_FP],
            (unsigned long long)cls_count[XAPP_DP]);
    fprintf(f, "    \"mem_refs\": %llu, \"cold_refs\": %llu, \"reuse2_refs\": %llu,\n",
            (unsigned long long)mem_refs, (unsigned long long)cold_refs, (unsigned long long)reuse2_refs);
    fprintf(f, "    \"mem_windows\": %llu, \"const_stride_windows\": %llu, \"branch_decisions\": %llu,\n",
            (unsigned long long)mw_windows, (unsigned long long)mw_const_stride,
            (unsigned long long)bd_decisions);
    fprintf(f, "    \"ilp_windows\": [");
    for (int k = 0; k < NILP; k++) fprintf(f, "%s%llu", k ? ", " : "", (unsigned long long)ilp_nwin[k]);
    fprintf(f, "],\n    \"branch_windows\": [");
    for (int k = 0; k < NBDIV; k++) fprintf(f, "%s%llu", k ? ", " : "", (unsigned long long)bd_windows[k]);
    fprintf(f, "]\n  },\n");
    write_u64s(f, "block_counts", block_count ? block_count : (const uint64_t *)&nseq,
               block_count ? __xapp_n_blocks : 0);
    fprintf(f, ",\n");
    write_u64s(f, "succ_counts", succ_count ? succ_count : (const uint64_t *)&nseq,
               succ_count ? __xapp_n_succ : 0);
    fprintf(f, "\n}\n");
    fclose(f);
}
