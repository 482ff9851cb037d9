/* scatter_add: out[idx[i]] += val[i] with idx uniform over a table 16x smaller than the input
 * (integer values, so the result does not depend on the order of the additions)
 * (category: irregular: random read-modify-writes, write conflicts). */
#include "../../harness/xapp_harness.h"

void scatter_add(long n, long m, const int *restrict idx, const int *restrict val, int *restrict out) {
    for (long j = 0; j < m; j++) out[j] = 0;  /* reset: the region is re-run from the same inputs */
#pragma xapp parallel trip(33554432)
    for (long i = 0; i < n; i++) {
        out[idx[i]] += val[i];
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 25);
    long m = xapp_arg(argc, argv, 2, 1L << 20);   /* table size */
    int *idx = (int *)xapp_alloc((size_t)n * sizeof(int)), *val = (int *)xapp_alloc((size_t)n * sizeof(int));
    int *out = (int *)xapp_alloc((size_t)m * sizeof(int));
    xapp_seed(17);
    xapp_fill_int(idx, n, 0, (int)m);
    xapp_fill_int(val, n, 0, 100);
    double best = INFINITY;
    for (int r = 0; r < xapp_repeats(); r++) {
        double t0 = xapp_now();
        scatter_add(n, m, idx, val, out);
        double t = xapp_now() - t0;
        if (t < best) best = t;
    }
    xapp_report(best, xapp_checksum_int(out, m));
    free(idx); free(val); free(out);
    return 0;
}
