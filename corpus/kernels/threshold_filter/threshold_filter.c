/* threshold_filter: per-pixel filter of a noisy signal: pixels above a threshold take an expensive
 * path (cube root by Newton's method, with divisions), the others a cheap one; the signal is a
 * slow ramp plus noise, so branch outcomes come in runs with mixed boundaries
 * (category: data-dependent-branches: unbalanced, partly divergent branch). */
#include "../../harness/xapp_harness.h"

#define NEWTON_STEPS 8

/* Deterministic input (shared by copy with the .cu side): a triangle wave of period 4096 plus
 * noise, in [0, 1); arithmetic only, so both sides build identical data. */
static void make_signal(long n, float *x) {
    xapp_fill_float(x, n, 0.0f, 0.4f);
    for (long i = 0; i < n; i++) {
        float t = (float)(i % 4096) * (1.0f / 4096.0f);
        x[i] += 0.6f * fabsf(2.0f * t - 1.0f) * 0.999f;
    }
}

void threshold_filter(long n, float thr, const float *restrict x, float *restrict out) {
#pragma xapp parallel trip(33554432)
    for (long i = 0; i < n; i++) {
        float v = x[i];
#pragma xapp prob(0.33)
        if (v > thr) {
            float y = v;
            for (int k = 0; k < NEWTON_STEPS; k++) y = (2.0f * y + v / (y * y)) * (1.0f / 3.0f);
            out[i] = y;
        } else {
            out[i] = 0.5f * v;
        }
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 25);
    float *x = (float *)xapp_alloc((size_t)n * sizeof(float)), *out = (float *)xapp_alloc((size_t)n * sizeof(float));
    xapp_seed(18);
    make_signal(n, x);
    double best = INFINITY;
    for (int r = 0; r < xapp_repeats(); r++) {
        double t0 = xapp_now();
        threshold_filter(n, 0.6f, x, out);
        double t = xapp_now() - t0;
        if (t < best) best = t;
    }
    xapp_report(best, xapp_checksum_float(out, n));
    free(x); free(out);
    return 0;
}
