/* histogram: 256-bin histogram of x^2 for x uniform in [0,1) (a skewed distribution: bin 0 gets
 * 1/16 of the samples), scattered increments into a small table (category: irregular). */
#include "../../harness/xapp_harness.h"

#define NBINS 256

void histogram(long n, const float *x, int *hist) {
    for (int b = 0; b < NBINS; b++) hist[b] = 0;  /* reset: the region is re-run from the same inputs */
#pragma xapp parallel trip(67108864)
    for (long i = 0; i < n; i++) {
        float v = x[i];
        int b = (int)(v * v * NBINS);
        if (b > NBINS - 1) b = NBINS - 1;
        hist[b]++;
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 26);
    float *x = (float *)xapp_alloc((size_t)n * sizeof(float));
    int hist[NBINS];
    xapp_seed(15);
    xapp_fill_float(x, n, 0.0f, 1.0f);
    double best = INFINITY;
    for (int r = 0; r < xapp_repeats(); r++) {
        double t0 = xapp_now();
        histogram(n, x, hist);
        double t = xapp_now() - t0;
        if (t < best) best = t;
    }
    xapp_report(best, xapp_checksum_int(hist, NBINS));
    free(x);
    return 0;
}
