/* gather_random: out[i] = src[idx[i]] * w[i] with idx uniform over a large table: streaming
 * index and weight reads, uncoalesced random reads (category: irregular). */
#include "../../harness/xapp_harness.h"

void gather_random(long n, const int *restrict idx, const float *restrict src, const float *restrict w,
                   float *restrict out) {
#pragma xapp parallel trip(16777216)
    for (long i = 0; i < n; i++) {
        out[i] = src[idx[i]] * w[i];
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 24);
    long m = xapp_arg(argc, argv, 2, 1L << 24);   /* table size */
    int *idx = (int *)xapp_alloc((size_t)n * sizeof(int));
    float *src = (float *)xapp_alloc((size_t)m * sizeof(float)), *w = (float *)xapp_alloc((size_t)n * sizeof(float));
    float *out = (float *)xapp_alloc((size_t)n * sizeof(float));
    xapp_seed(16);
    xapp_fill_int(idx, n, 0, (int)m);
    xapp_fill_float(src, m, 0.0f, 1.0f);
    xapp_fill_float(w, n, 0.5f, 1.5f);
    double best = INFINITY;
    for (int r = 0; r < xapp_repeats(); r++) {
        double t0 = xapp_now();
        gather_random(n, idx, src, w, out);
        double t = xapp_now() - t0;
        if (t < best) best = t;
    }
    xapp_report(best, xapp_checksum_float(out, n));
    free(idx); free(src); free(w); free(out);
    return 0;
}
