/* blackscholes: European call and put prices of n options by the Black-Scholes formula, with the
 * polynomial approximation of the normal CDF (log, exp, sqrt per option)
 * (category: transcendental). */
#include "../../harness/xapp_harness.h"

#define RISKFREE 0.02f
#define VOLATILITY 0.30f

/* Cumulative normal distribution, Abramowitz-Stegun polynomial approximation. */
static inline float cnd(float d) {
    const float A1 = 0.31938153f, A2 = -0.356563782f, A3 = 1.781477937f, A4 = -1.821255978f, A5 = 1.330274429f;
    const float RSQRT2PI = 0.39894228040143267794f;
    float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float c = RSQRT2PI * expf(-0.5f * d * d) * (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))));
    return d > 0.0f ? 1.0f - c : c;
}

/* call[i] and put[i] = call[n + i] of option i. */
void blackscholes(long n, const float *restrict price, const float *restrict strike, const float *restrict years,
                  float *restrict out) {
#pragma xapp parallel trip(4194304)
    for (long i = 0; i < n; i++) {
        float s = price[i], x = strike[i], t = years[i];
        float sqrt_t = sqrtf(t);
        float d1 = (logf(s / x) + (RISKFREE + 0.5f * VOLATILITY * VOLATILITY) * t) / (VOLATILITY * sqrt_t);
        float d2 = d1 - VOLATILITY * sqrt_t;
        float cnd1 = cnd(d1), cnd2 = cnd(d2);
        float discount = expf(-RISKFREE * t);
        out[i] = s * cnd1 - x * discount * cnd2;
        out[n + i] = x * discount * (1.0f - cnd2) - s * (1.0f - cnd1);
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 22);
    float *price = (float *)xapp_alloc((size_t)n * sizeof(float)), *strike = (float *)xapp_alloc((size_t)n * sizeof(float));
    float *years = (float *)xapp_alloc((size_t)n * sizeof(float)), *out = (float *)xapp_alloc((size_t)2 * n * sizeof(float));
    xapp_seed(20);
    xapp_fill_float(price, n, 5.0f, 30.0f);
    xapp_fill_float(strike, n, 1.0f, 100.0f);
    xapp_fill_float(years, n, 0.25f, 10.0f);
    double best = INFINITY;
    for (int r = 0; r < xapp_repeats(); r++) {
        double t0 = xapp_now();
        blackscholes(n, price, strike, years, out);
        double t = xapp_now() - t0;
        if (t < best) best = t;
    }
    xapp_report(best, xapp_checksum_float(out, 2 * n));
    free(price); free(strike); free(years); free(out);
    return 0;
}
