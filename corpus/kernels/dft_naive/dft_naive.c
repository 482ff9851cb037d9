/* dft_naive: power spectrum |X[k]|^2 of a real signal by the O(n^2) discrete Fourier transform,
 * one sinf and one cosf per term (the twiddle index k*t mod n is kept exact in integers)
 * (category: transcendental). */
#include "../../harness/xapp_harness.h"

void dft_naive(int n, const float *x, float *power) {
    float w = 6.283185307179586f / (float)n;
#pragma xapp parallel trip(6144)
    for (int k = 0; k < n; k++) {
        float re = 0.0f, im = 0.0f;
        int idx = 0;   /* k * t mod n */
        for (int t = 0; t < n; t++) {
            float a = w * (float)idx;
            re += x[t] * cosf(a);
            im -= x[t] * sinf(a);
            idx += k;
            if (idx >= n) idx -= n;
        }
        power[k] = re * re + im * im;
    }
}

int main(int argc, char **argv) {
    int n = (int)xapp_arg(argc, argv, 1, 6144);
    float *x = (float *)xapp_alloc((size_t)n * sizeof(float)), *power = (float *)xapp_alloc((size_t)n * sizeof(float));
    xapp_seed(22);
    xapp_fill_float(x, n, -1.0f, 1.0f);
    double best = INFINITY;
    for (int r = 0; r < xapp_repeats(); r++) {
        double t0 = xapp_now();
        dft_naive(n, x, power);
        double t = xapp_now() - t0;
        if (t < best) best = t;
    }
    xapp_report(best, xapp_checksum_float(power, n));
    free(x); free(power);
    return 0;
}
