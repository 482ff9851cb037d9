/* bitonic_sort: sort 2^logn integer keys ascending with Batcher's bitonic sorting network
 * (category: irregular: a data-independent network, O(n log^2 n) compare-exchanges). Stage k
 * (k = 2, 4, ..., n) merges bitonic runs of length k with steps j = k/2, k/4, ..., 1; each step
 * compare-exchanges the pairs (i, i + j), ascending where bit k of i is 0, descending elsewhere.
 * The stage and step loops stay on the host (one GPU launch per step: 210 for 2^20 keys); the band
 * is one step's n/2 independent pairs, walked as n/(2j) groups of j consecutive pairs (the
 * pragmas give the mean trip counts per entry over the 210 steps). Within a group the direction
 * is fixed, so the inner loop is branch-free min/max (vectorised for large j). The keys are copied
 * from the input first (timed on both sides), so every repeat sorts the same data. */
#include "../../harness/xapp_harness.h"

void bitonic_sort(long n, const int *restrict in, int *restrict a) {
    memcpy(a, in, n * sizeof(int));
#pragma xapp trip(20)
    for (long k = 2; k <= n; k <<= 1) {
#pragma xapp trip(10.5)
        for (long j = k >> 1; j > 0; j >>= 1) {
#pragma xapp parallel(2) trip(94871)
            for (long g = 0; g < n; g += 2 * j) {
                int up = (g & k) == 0;   /* 2j <= k: bit k is the same for the whole group */
#pragma xapp trip(5.5263)
                for (long i = g; i < g + j; i++) {
                    int x = a[i], y = a[i + j];
                    int lo = x < y ? x : y, hi = x < y ? y : x;
                    a[i] = up ? lo : hi;
                    a[i + j] = up ? hi : lo;
                }
            }
        }
    }
}

int main(int argc, char **argv) {
    int logn = (int)xapp_arg(argc, argv, 1, 20);
    if (logn > 30) { fprintf(stderr, "bitonic_sort: at most 2^30 keys\n"); return 2; }
    long n = 1L << logn;
    int *in = xapp_alloc(n * sizeof(int)), *a = xapp_alloc(n * sizeof(int));
    xapp_seed(513);
    xapp_fill_int(in, n, 0, 100000000);
    XAPP_TIME_REGION(best, bitonic_sort(n, in, a));
    for (long i = 1; i < n; i++)
        if (a[i - 1] > a[i]) { fprintf(stderr, "bitonic_sort: not sorted at %ld\n", i); return 1; }
    xapp_report(best, xapp_checksum_int(a, n));
    free(in); free(a);
    return 0;
}
