/* prefix_scan: exclusive prefix sum of 2^26 ints, out[i] = in[0] + ... + in[i-1] (category:
 * reduction: a scan). Written in the blocked form a GPU port takes: the band scans each block of
 * 1024 elements on its own (a serial running sum inside the block) and records the block's
 * total; a short serial carry pass then turns the totals into each block's offset, and a last
 * pass adds the offsets (one carry per block). Two passes over the data instead of a single
 * running sum, the same O(n) work. */
#include "../../harness/xapp_harness.h"

#define BLOCK 1024

void prefix_scan(long n, const int *restrict in, int *restrict out, int *restrict sums) {
    long nb = (n + BLOCK - 1) / BLOCK;
#pragma xapp parallel trip(65536)
    for (long b = 0; b < nb; b++) {
        long lo = b * BLOCK, hi = lo + BLOCK < n ? lo + BLOCK : n;
        int s = 0;
#pragma xapp trip(1024)
        for (long i = lo; i < hi; i++) {
            out[i] = s;
            s += in[i];
        }
        sums[b] = s;
    }
    int carry = 0;   /* host-side carry pass: exclusive scan of the block totals */
    for (long b = 0; b < nb; b++) {
        int t = sums[b];
        sums[b] = carry;
        carry += t;
    }
    for (long b = 1; b < nb; b++) {
        long lo = b * BLOCK, hi = lo + BLOCK < n ? lo + BLOCK : n;
        int c = sums[b];
        for (long i = lo; i < hi; i++) out[i] += c;
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 26);
    long nb = (n + BLOCK - 1) / BLOCK;
    int *in = xapp_alloc(n * sizeof(int)), *out = xapp_alloc(n * sizeof(int)), *sums = xapp_alloc(nb * sizeof(int));
    xapp_seed(514);
    xapp_fill_int(in, n, 0, 10);
    XAPP_TIME_REGION(best, prefix_scan(n, in, out, sums));
    xapp_report(best, xapp_checksum_int(out, n));
    free(in); free(out); free(sums);
    return 0;
}
