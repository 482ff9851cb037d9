/* lcg_chain: a few independent 64-bit linear congruential generators, each advanced through a long
 * chain of dependent steps (state = a * state + c, with an occasional data-dependent extra mixing
 * step); per stream it counts the states in the lowest quarter, xor-folds the high bits and keeps
 * the final state. Every step needs the previous one, so the only parallelism is the handful of
 * streams (category: gpu-hostile; 64-bit integer multiplies, which GPUs emulate with 32-bit ones). */
#include "../../harness/xapp_harness.h"

#define LCG_A 6364136223846793005ULL
#define LCG_C 1442695040888963407ULL

/* out[3s]: steps whose state fell in [0, 2^62), out[3s+1]: xor of the states' bits 33..63,
 * out[3s+2]: bits 33..63 of the final state. */
void lcg_chain(int streams, long steps, const int *restrict seeds, int *restrict out) {
#pragma xapp parallel trip(16)
    for (int s = 0; s < streams; s++) {
        uint64_t state = (uint64_t)(uint32_t)seeds[2 * s] << 32 | (uint32_t)seeds[2 * s + 1];
        uint64_t fold = 0;
        int low = 0;
#pragma xapp trip(4194304)
        for (long t = 0; t < steps; t++) {
            state = state * LCG_A + LCG_C;
#pragma xapp prob(0.0625)
            if ((state >> 60) == 0) state ^= state >> 17;   /* rare extra mixing, part of the chain */
            low += (state >> 62) == 0;
            fold ^= state >> 33;
        }
        out[3 * s] = low;
        out[3 * s + 1] = (int)fold;
        out[3 * s + 2] = (int)(state >> 33);
    }
}

int main(int argc, char **argv) {
    int streams = (int)xapp_arg(argc, argv, 1, 16);
    long steps = xapp_arg(argc, argv, 2, 1L << 22);
    int *seeds = (int *)xapp_alloc((size_t)2 * streams * sizeof(int)), *out = (int *)xapp_alloc((size_t)3 * streams * sizeof(int));
    xapp_seed(602);
    xapp_fill_int(seeds, 2 * (size_t)streams, 0, 2147483647);
    XAPP_TIME_REGION(best, lcg_chain(streams, steps, seeds, out));
    xapp_report(best, xapp_checksum_int(out, 3 * (size_t)streams));
    free(seeds); free(out);
    return 0;
}
