/* montecarlo_pi: estimate pi by throwing points into the unit square. Each of `streams`
 * independent generators (a 64-bit LCG from its own seed) draws `points` points (x, y), 31 bits
 * each, and counts those with x^2 + y^2 < 2^62, inside the quarter circle; the counts are summed
 * (category: reduction). All integer, so both sides agree exactly. Per stream the work is a
 * serial chain of 64-bit multiplications: compute-bound, no memory traffic. Few streams, each
 * long: the GPU port has only 1024 threads (8 blocks), each a latency-bound chain. */
#include "../../harness/xapp_harness.h"

#define LCG_A 6364136223846793005ULL   /* Knuth's MMIX multiplier */
#define LCG_C 1442695040888963407ULL
#define R2 (1ULL << 62)                /* the squared radius, (2^31)^2 */

/* Counts per stream go to hits[]; returns their sum. */
unsigned long long montecarlo_pi(int streams, int points, const int *restrict seeds, int *restrict hits) {
    unsigned long long total = 0;
#pragma xapp parallel trip(1024)
    for (int t = 0; t < streams; t++) {
        uint64_t s = (uint64_t)seeds[t];
        int count = 0;
#pragma xapp trip(65536)
        for (int p = 0; p < points; p++) {
            s = s * LCG_A + LCG_C;
            uint64_t x = s >> 33;
            s = s * LCG_A + LCG_C;
            uint64_t y = s >> 33;
            count += x * x + y * y < R2;
        }
        hits[t] = count;
        total += (unsigned long long)count;
    }
    return total;
}

int main(int argc, char **argv) {
    int streams = (int)xapp_arg(argc, argv, 1, 1024), points = (int)xapp_arg(argc, argv, 2, 65536);
    int *seeds = xapp_alloc(streams * sizeof(int)), *hits = xapp_alloc(streams * sizeof(int));
    xapp_seed(503);
    xapp_fill_int(seeds, streams, 0, 2147483647);
    unsigned long long total = 0;
    XAPP_TIME_REGION(best, total = montecarlo_pi(streams, points, seeds, hits));
    /* pi ~ 4 total / (streams * points); the checksum folds the per-stream counts and the total */
    xapp_report(best, xapp_checksum_int(hits, streams) + (double)total);
    free(seeds); free(hits);
    return 0;
}
