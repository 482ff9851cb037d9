/* conv1d_wide: FIR filter, out[i] = sum over k < 63 of f[k] * x[i+k] for the n-62 positions
 * where the window fits (category: stencil; a wide 1-D stencil, 63 multiply-adds per output,
 * every input read by 63 outputs). The tap loop has a constant trip count; gcc vectorises the
 * output loop around it (8 or 16 outputs at a time, the taps in ascending order). */
#include "../../harness/xapp_harness.h"

#define TAPS 63

void conv1d_wide(long n, const float *restrict x, const float *restrict f, float *restrict out) {
    long m = n - TAPS + 1;
#pragma xapp parallel trip(33554370)
    for (long i = 0; i < m; i++) {
        float acc = 0.0f;
        for (int k = 0; k < TAPS; k++) acc += f[k] * x[i + k];
        out[i] = acc;
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 25);
    if (n < TAPS) { fprintf(stderr, "conv1d_wide: need at least %d samples\n", TAPS); return 2; }
    long m = n - TAPS + 1;
    float *x = xapp_alloc(n * sizeof(float)), *out = xapp_alloc(m * sizeof(float));
    float f[TAPS];
    xapp_seed(505);
    xapp_fill_float(f, TAPS, -1.0f, 1.0f);
    xapp_fill_float(x, n, -1.0f, 1.0f);
    XAPP_TIME_REGION(best, conv1d_wide(n, x, f, out));
    xapp_report(best, xapp_checksum_float(out, m));
    free(x); free(out);
    return 0;
}
