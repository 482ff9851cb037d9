/* hash_probe: the probe phase of a hash join: each probe key is hashed (multiplicative hashing) into
 * an open-addressing table of 2^23 (key, payload) pairs, load factor 1/2, and looked up by linear
 * probing until its key or an empty slot turns up (category: irregular: one random 64 MiB-table
 * access per probe, a short data-dependent probe loop, half the probes miss). */
#include "../../harness/xapp_harness.h"

#define EMPTY (-1)

static inline uint32_t slot_of(int key, int log_slots) { return ((uint32_t)key * 2654435761u) >> (32 - log_slots); }

/* Deterministic build side (shared by copy with the other side): nbuild random keys in [0, 2^30)
 * with random payloads, inserted in order into an open-addressing table of 2^log_slots (key,
 * payload) pairs, interleaved, with linear probing (a repeated key keeps its last payload). The
 * table is the smallest power of two at least twice nbuild (load factor <= 1/2). */
static int *build_table(long nbuild, const int *bkeys, const int *bvals, int *log_slots_out) {
    int log_slots = 1;
    while ((1L << log_slots) < 2 * nbuild) log_slots++;
    uint32_t mask = (uint32_t)((1L << log_slots) - 1);
    int *table = (int *)xapp_alloc(((size_t)2 << log_slots) * sizeof(int));
    for (long s = 0; s < (1L << log_slots); s++) { table[2 * s] = EMPTY; table[2 * s + 1] = 0; }
    for (long i = 0; i < nbuild; i++) {
        uint32_t h = slot_of(bkeys[i], log_slots);
        while (table[2 * h] != EMPTY && table[2 * h] != bkeys[i]) h = (h + 1) & mask;
        table[2 * h] = bkeys[i];
        table[2 * h + 1] = bvals[i];
    }
    *log_slots_out = log_slots;
    return table;
}
void hash_probe(long nprobe, int log_slots, const int *restrict table, const int *restrict probe,
                int *restrict result) {
    const uint32_t mask = (uint32_t)((1L << log_slots) - 1);
#pragma xapp parallel trip(4194304)
    for (long i = 0; i < nprobe; i++) {
        int key = probe[i], r = -1;
        uint32_t h = slot_of(key, log_slots);
#pragma xapp trip(2.0)
        for (;;) {
            int k = table[2 * h];
#pragma xapp prob(0.25)
            if (k == key) {
                r = table[2 * h + 1];
                break;
            }
#pragma xapp prob(0.34)
            if (k == EMPTY) break;
            h = (h + 1) & mask;
        }
        result[i] = r;
    }
}

int main(int argc, char **argv) {
    long nbuild = xapp_arg(argc, argv, 1, 1L << 22);
    long nprobe = xapp_arg(argc, argv, 2, 1L << 22);
    if (nbuild > (1L << 29)) { fprintf(stderr, "xapp: at most 2^29 build keys\n"); exit(2); }
    int *bkeys = (int *)xapp_alloc((size_t)nbuild * sizeof(int)), *bvals = (int *)xapp_alloc((size_t)nbuild * sizeof(int));
    int *probe = (int *)xapp_alloc((size_t)nprobe * sizeof(int)), *result = (int *)xapp_alloc((size_t)nprobe * sizeof(int));
    xapp_seed(114);
    xapp_fill_int(bkeys, nbuild, 0, 1 << 30);
    xapp_fill_int(bvals, nbuild, 0, 1 << 24);
    for (long i = 0; i < nprobe; i++) {  /* half the probes look up a build key, half a random key */
        uint64_t r = xapp_next();
        probe[i] = (r & 1) ? bkeys[(r >> 1) % (uint64_t)nbuild] : (int)((r >> 1) % (1u << 30));
    }
    int log_slots = 0;
    int *table = build_table(nbuild, bkeys, bvals, &log_slots);
    XAPP_TIME_REGION(best, hash_probe(nprobe, log_slots, table, probe, result));
    xapp_report(best, xapp_checksum_int(result, nprobe));
    free(bkeys); free(bvals); free(probe); free(result); free(table);
    return 0;
}
