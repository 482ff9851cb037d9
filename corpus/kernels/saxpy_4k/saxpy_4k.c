/* saxpy_4k: input-size variant of corpus kernel saxpy (n = 4096); same code, other default args and trip counts. */
/* saxpy: regular streaming, one multiply-add per element (category: streaming). */
#include "../../harness/xapp_harness.h"

void saxpy(long n, float a, const float *restrict x, const float *restrict y, float *restrict out) {
#pragma xapp parallel trip(4096)
    for (long i = 0; i < n; i++) {
        out[i] = a * x[i] + y[i];
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 12);
    float *x = xapp_alloc(n * sizeof(float)), *y = xapp_alloc(n * sizeof(float));
    float *out = xapp_alloc(n * sizeof(float));
    xapp_seed(1);
    xapp_fill_float(x, n, -1.0f, 1.0f);
    xapp_fill_float(y, n, -1.0f, 1.0f);
    double best = INFINITY;
    for (int r = 0; r < xapp_repeats(); r++) {
        double t0 = xapp_now();
        saxpy(n, 2.5f, x, y, out);
        double t = xapp_now() - t0;
        if (t < best) best = t;
    }
    xapp_report(best, xapp_checksum_float(out, n));
    free(x); free(y); free(out);
    return 0;
}
