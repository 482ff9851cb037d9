/* dft_naive: power spectrum |X[k]|^2 of a real signal by the O(n^2) discrete Fourier transform,
 * one sinf and one cosf per term (the twiddle index k*t mod n is kept exact in integers)
 * (category: transcendental). */
#include "../../harness/xapp_harness.h"

#define CHUNK 256

void dft_naive(int n, const float *restrict x, float *restrict power) {
    float w = 6.283185307179586f / (float)n;
#pragma xapp parallel trip(6144)
    for (int k = 0; k < n; k++) {
        float re = 0.0f, im = 0.0f;
        int idx = 0;   /* k * t mod n */
        /* In chunks of the signal: first the exact twiddle indices (a serial recurrence), then
         * the cosines, the sines and the sums, loops without a carried index that the compiler
         * can vectorise. */
#pragma xapp trip(24)
        for (int t0 = 0; t0 < n; t0 += CHUNK) {
            int len = n - t0 < CHUNK ? n - t0 : CHUNK;
            float angle[CHUNK], c[CHUNK], s[CHUNK];
#pragma xapp trip(256)
            for (int t = 0; t < len; t++) {
                angle[t] = w * (float)idx;
                idx += k;
                if (idx >= n) idx -= n;
            }
#pragma xapp trip(256)
            for (int t = 0; t < len; t++) c[t] = cosf(angle[t]);
#pragma xapp trip(256)
            for (int t = 0; t < len; t++) s[t] = sinf(angle[t]);
#pragma xapp trip(256)
            for (int t = 0; t < len; t++) {
                re += x[t0 + t] * c[t];
                im -= x[t0 + t] * s[t];
            }
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
