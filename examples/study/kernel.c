/* A blocked 1-D three-point stencil, tuned by TILE (elements per block) and UNROLL.
 *
 * Compiled by starchart with -DTILE=<v> -DUNROLL=<v>; prints one "time_ms:" line per
 * repeat (STARCHART_REPEATS in the environment) and a checksum of the result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef TILE
#define TILE 8
#endif
#ifndef UNROLL
#define UNROLL 1
#endif
#define N (1 << 20)
#define STEPS 8
#define PRAGMA(x) _Pragma(#x)
#define UNROLLED(n) PRAGMA(GCC unroll n)

static void step(const double *in, double *out) {
    for (long start = 1; start < N - 1; start += TILE) {
        long end = start + TILE < N - 1 ? start + TILE : N - 1;
        UNROLLED(UNROLL)
        for (long i = start; i < end; i++)
            out[i] = 0.25 * in[i - 1] + 0.5 * in[i] + 0.25 * in[i + 1];
    }
}

int main(void) {
    const char *env = getenv("STARCHART_REPEATS");
    int repeats = env ? atoi(env) : 1;
    double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    double checksum = 0.0;
    for (int r = 0; r < repeats; r++) {
        for (long i = 0; i < N; i++) a[i] = b[i] = (double)(i % 64) / 64.0;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (int s = 0; s < STEPS; s++) { step(a, b); double *t = a; a = b; b = t; }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        printf("time_ms: %.6f\n", (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6);
        checksum = 0.0;
        for (long i = 0; i < N; i++) checksum += a[i];
    }
    printf("checksum: %.17g\n", checksum);
    free(a); free(b);
    return 0;
}
