/* montecarlo_asian: price an arithmetic-average Asian call option by Monte Carlo. Every path
 * follows geometric Brownian motion over `steps` time steps, S <- S exp((r - sigma^2/2) dt +
 * sigma sqrt(dt) z), its normal draws z made from a per-path 64-bit LCG by the Box-Muller
 * transform (a log, a square root, a cosine and a sine per two draws); the discounted payoff
 * max(mean S - K, 0) e^{-rT} of each path is written out (category: transcendental: an exp per
 * step and the Box-Muller functions, a serial chain of steps inside each path). */
#include "../../harness/xapp_harness.h"

#define LCG_A 6364136223846793005ULL
#define LCG_C 1442695040888963407ULL

#define S0 100.0f
#define STRIKE 100.0f
#define RATE 0.05f
#define SIGMA 0.2f
#define MATURITY 1.0f

/* steps is even: the draws come in Box-Muller pairs. */
void montecarlo_asian(int paths, int steps, const int *restrict seeds, float *restrict payoff) {
    const float dt = MATURITY / (float)steps;
    const float drift = (RATE - 0.5f * SIGMA * SIGMA) * dt, vol = SIGMA * sqrtf(dt);
    const float discount = expf(-RATE * MATURITY), two_pi = 6.283185307f, inv_2_24 = 1.0f / 16777216.0f;
#pragma xapp parallel trip(131072)
    for (int p = 0; p < paths; p++) {
        uint64_t s = (uint64_t)seeds[p];
        float price = S0, sum = 0.0f;
#pragma xapp trip(32)
        for (int k = 0; k < steps; k += 2) {
            s = s * LCG_A + LCG_C;
            float u1 = (float)((s >> 40) + 1) * inv_2_24;   /* (0, 1] */
            s = s * LCG_A + LCG_C;
            float u2 = (float)(s >> 40) * inv_2_24;         /* [0, 1) */
            float rad = sqrtf(-2.0f * logf(u1)), theta = two_pi * u2;
            price *= expf(drift + vol * rad * cosf(theta));
            sum += price;
            price *= expf(drift + vol * rad * sinf(theta));
            sum += price;
        }
        float avg = sum / (float)steps;
        payoff[p] = discount * (avg > STRIKE ? avg - STRIKE : 0.0f);
    }
}

int main(int argc, char **argv) {
    int paths = (int)xapp_arg(argc, argv, 1, 131072), steps = (int)xapp_arg(argc, argv, 2, 64);
    if (steps % 2) { fprintf(stderr, "montecarlo_asian: steps must be even\n"); return 2; }
    int *seeds = xapp_alloc(paths * sizeof(int));
    float *payoff = xapp_alloc(paths * sizeof(float));
    xapp_seed(509);
    xapp_fill_int(seeds, paths, 0, 2147483647);
    XAPP_TIME_REGION(best, montecarlo_asian(paths, steps, seeds, payoff));
    xapp_report(best, xapp_checksum_float(payoff, paths));
    free(seeds); free(payoff);
    return 0;
}
