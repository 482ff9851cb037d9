/* histogram_64k: input-size variant of corpus kernel histogram (n = 2^16); same code, other default args and trip counts. */
/* histogram: 256-bin histogram of x^2 for x uniform in [0,1) (a skewed distribution: bin 0 gets
 * 1/16 of the samples), scattered increments into a small table (category: irregular). The band
 * runs over chunks of 256 samples (the CUDA side's threads take about as many, grid-strided). */
#include "../../harness/xapp_harness.h"

#define NBINS 256

#define CHUNK 256

void histogram(long n, const float *restrict x, int *restrict hist) {
    /* A private table while counting (the output is written once at the end), and the samples
     * in chunks: first every sample's bin (a loop the compiler vectorises), then the increments,
     * so that the bin arithmetic does not sit in the chain of dependent increments. */
    int local[NBINS];
    for (int b = 0; b < NBINS; b++) local[b] = 0;
#pragma xapp parallel trip(256)
    for (long i0 = 0; i0 < n; i0 += CHUNK) {
        int len = n - i0 < CHUNK ? (int)(n - i0) : CHUNK;
        int bins[CHUNK];
#pragma xapp trip(256)
        for (int t = 0; t < len; t++) {
            float v = x[i0 + t];
            int b = (int)(v * v * NBINS);
            bins[t] = b > NBINS - 1 ? NBINS - 1 : b;
        }
#pragma xapp trip(256)
        for (int t = 0; t < len; t++) local[bins[t]]++;
    }
    for (int b = 0; b < NBINS; b++) hist[b] = local[b];  /* the region is re-run from the same inputs */
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 16);
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
