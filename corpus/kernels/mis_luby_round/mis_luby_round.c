/* mis_luby_round: one round of Luby's maximal independent set on an undirected power-law-like graph,
 * after a first round: each undecided vertex draws a fresh hashed priority and joins the set if it
 * beats every undecided neighbour; then the undecided neighbours of the new members drop out
 * (category: graph: integer hashing per edge visit, early-exit scans, byte states). The band is the
 * selection pass; the removal pass follows it in the same round. */
#include "../../harness/xapp_harness.h"

/* Skewed vertex id in [0, n): the product of three uniform draws scaled to n, so low ids are hubs
 * (a power-law-like degree tail). */
static long skewed_vertex(long n) {
    uint64_t a = xapp_next() % (uint64_t)n, b = xapp_next() % (uint64_t)n, c = xapp_next() % (uint64_t)n;
    return (long)(a * b / (uint64_t)n * c / (uint64_t)n);
}

/* Deterministic undirected random graph in symmetric CSR form (shared by copy with the other
 * side): m edges, each between a skewed and a uniform endpoint, stored in both directions. */
static void make_undirected(long n, long m, int **rowptr_out, int **col_out) {
    if ((double)m * 2.0 > 2147483647.0) {
        fprintf(stderr, "xapp: 2*m must fit in an int (got m=%ld)\n", m);
        exit(2);
    }
    int *a = (int *)xapp_alloc((size_t)m * sizeof(int)), *b = (int *)xapp_alloc((size_t)m * sizeof(int));
    for (long e = 0; e < m; e++) {
        a[e] = (int)skewed_vertex(n);
        b[e] = (int)(xapp_next() % (uint64_t)n);
    }
    int *rowptr = (int *)calloc((size_t)n + 1, sizeof(int));
    int *col = (int *)xapp_alloc((size_t)(2 * m) * sizeof(int));
    for (long e = 0; e < m; e++) { rowptr[a[e] + 1]++; rowptr[b[e] + 1]++; }
    for (long v = 0; v < n; v++) rowptr[v + 1] += rowptr[v];
    int *fill = (int *)xapp_alloc((size_t)n * sizeof(int));
    memcpy(fill, rowptr, (size_t)n * sizeof(int));
    for (long e = 0; e < m; e++) { col[fill[a[e]]++] = b[e]; col[fill[b[e]]++] = a[e]; }
    free(a); free(b); free(fill);
    *rowptr_out = rowptr;
    *col_out = col;
}
#define UNDECIDED 0
#define IN_SET 1
#define OUT_SET 2

/* Luby's priorities: a fresh pseudo-random 32-bit number per vertex and round, computed on the fly
 * by an integer mixer (lowbias32), identical on both sides. */
static inline uint32_t priority(uint32_t v, uint32_t round) {
    uint32_t x = v * 0x9E3779B9u + round * 0x85EBCA6Bu + 0x165667B1u;
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return x;
}
/* One Luby round on the host, for the untimed set-up (same code as the timed round). */
static void host_mis_round(long n, const int *rowptr, const int *col, int round, const unsigned char *state_in,
                           unsigned char *state_out) {
    for (long v = 0; v < n; v++) {
        unsigned char s = state_in[v];
        if (s == UNDECIDED) {
            uint32_t pv = priority((uint32_t)v, (uint32_t)round);
            int win = 1;
            for (int e = rowptr[v]; e < rowptr[v + 1]; e++) {
                int u = col[e];
                if (state_in[u] == UNDECIDED) {
                    uint32_t pu = priority((uint32_t)u, (uint32_t)round);
                    if (pu > pv || (pu == pv && u > v)) { win = 0; break; }
                }
            }
            if (win) s = IN_SET;
        }
        state_out[v] = s;
    }
    for (long v = 0; v < n; v++) {
        if (state_out[v] != UNDECIDED) continue;
        for (int e = rowptr[v]; e < rowptr[v + 1]; e++)
            if (state_out[col[e]] == IN_SET) { state_out[v] = OUT_SET; break; }
    }
}
void mis_luby_round(long n, const int *restrict rowptr, const int *restrict col, int round,
                    const unsigned char *restrict state_in, unsigned char *restrict state_out) {
#pragma xapp parallel trip(2097152)
    for (long v = 0; v < n; v++) {
        unsigned char s = state_in[v];
#pragma xapp prob(0.47)
        if (s == UNDECIDED) {
            uint32_t pv = priority((uint32_t)v, (uint32_t)round);
            int win = 1;
            int end = rowptr[v + 1];
#pragma xapp trip(6.2)
            for (int e = rowptr[v]; e < end; e++) {
                int u = col[e];
#pragma xapp prob(0.22)
                if (state_in[u] == UNDECIDED) {
                    uint32_t pu = priority((uint32_t)u, (uint32_t)round);
                    if (pu > pv || (pu == pv && u > v)) {
                        win = 0;
                        break;
                    }
                }
            }
            if (win) s = IN_SET;
        }
        state_out[v] = s;
    }
    /* removal: an undecided vertex with a neighbour in the set leaves (reads only IN_SET marks,
     * which this pass does not change, so it can work in place) */
    for (long v = 0; v < n; v++) {
        if (state_out[v] != UNDECIDED) continue;
        int end = rowptr[v + 1];
        for (int e = rowptr[v]; e < end; e++) {
            if (state_out[col[e]] == IN_SET) {
                state_out[v] = OUT_SET;
                break;
            }
        }
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 21);
    long avg_deg = xapp_arg(argc, argv, 2, 16);
    int *rowptr, *col;
    xapp_seed(109);
    make_undirected(n, n * avg_deg / 2, &rowptr, &col);
    unsigned char *state0 = (unsigned char *)xapp_alloc((size_t)n), *state_in = (unsigned char *)xapp_alloc((size_t)n);
    unsigned char *state_out = (unsigned char *)xapp_alloc((size_t)n);
    memset(state0, UNDECIDED, (size_t)n);
    host_mis_round(n, rowptr, col, 0, state0, state_in);  /* untimed: round 0; round 1 is timed */
    XAPP_TIME_REGION(best, mis_luby_round(n, rowptr, col, 1, state_in, state_out));
    xapp_report(best, xapp_checksum_uchar(state_out, n));
    free(rowptr); free(col); free(state0); free(state_in); free(state_out);
    return 0;
}
