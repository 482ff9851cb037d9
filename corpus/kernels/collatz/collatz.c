/* collatz: number of Collatz steps (x -> x/2 if even, 3x+1 if odd) for every start value in
 * [first, first + n); the step count varies irregularly between neighbours
 * (category: data-dependent-branches: data-dependent trip count and a coin-flip branch). */
#include "../../harness/xapp_harness.h"

void collatz(long n, long first, int *steps) {
#pragma xapp parallel trip(1048576)
    for (long i = 0; i < n; i++) {
        uint64_t x = (uint64_t)(first + i);
        int s = 0;
#pragma xapp trip(146)
        while (x > 1) {
#pragma xapp prob(0.33)
            if (x & 1) x = 3 * x + 1;
            else x >>= 1;
            s++;
        }
        steps[i] = s;
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 20);
    long first = xapp_arg(argc, argv, 2, 1L << 20);
    int *steps = (int *)xapp_alloc((size_t)n * sizeof(int));
    double best = INFINITY;
    for (int r = 0; r < xapp_repeats(); r++) {
        double t0 = xapp_now();
        collatz(n, first, steps);
        double t = xapp_now() - t0;
        if (t < best) best = t;
    }
    xapp_report(best, xapp_checksum_int(steps, n));
    free(steps);
    return 0;
}
