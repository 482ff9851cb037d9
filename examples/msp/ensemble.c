/*
 * An ensemble of independent damped oscillators, each integrated for STEPS_TOTAL time
 * steps (semi-implicit Euler): the example kernel of minimum-saturation-point tuning.
 *
 * usage: ensemble N BLOCK GROUP STEPS
 *
 *   N      oscillators (the input size; the work is N * STEPS_TOTAL oscillator-steps)
 *   BLOCK  oscillators advanced together through time: the ensemble is cut into
 *          blocks, and each block does all its time steps before the next starts
 *          (it stays in cache meanwhile).  A block larger than the ensemble is
 *          the whole ensemble.
 *   GROUP  oscillators per iteration of the inner loop (4, 8, 16, 32): held in
 *          registers and updated together (the compiler turns a group into SIMD
 *          vectors).  Larger groups keep more independent updates in flight;
 *          the oscillators of a block that do not fill a whole group are done one
 *          at a time (scalar).
 *   STEPS  time steps per pass over a block (1, 2, 4): a group stays in registers
 *          for STEPS steps, saving loads and stores, with longer dependency chains.
 *
 * Why the throughput rises with N and then saturates: a CPU core is parallel
 * hardware too (SIMD lanes, several pipelined floating-point units), and one
 * step of an oscillator depends on its previous step, so the core only fills
 * up when enough independent oscillators are in flight.  With a handful it
 * idles, as a GPU does with too few threads (Magni et al., GPGPU 2014).  GROUP and
 * STEPS play the part of thread coarsening: they pay off on large ensembles and
 * cost scalar leftovers on small ones.
 *
 * All parameters are read at run time, so one binary serves the whole space and
 * size range: each (GROUP, STEPS) is its own specialised function.  Every
 * configuration computes the same steps of every oscillator; checksums agree to
 * about 1e-15 relative (the vectorised and the scalar leftover paths may fuse
 * multiply-adds differently).
 *
 * Output: one JSON line per run (STARCHART_REPEATS runs, default 1; only the
 * integration is timed): {"time_ms": <wall-clock ms>, "cpu_ms": <ms of CPU time
 * of this thread>}, then "checksum: <sum of the final positions>".  On a quiet
 * machine the two agree (the CPU clock costs about 0.2 us more to read); on a
 * shared one, runs longer than a scheduler time slice share the core, which
 * inflates wall-clock time but not CPU time.
 */
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define STEPS_TOTAL 256
#define DT 0.01
#define DAMPING 0.05

#define STEP(x, v, k)                                     \
    do {                                                  \
        const double a_ = -(k) * (x) - DAMPING * (v);     \
        (v) += DT * a_;                                   \
        (x) += DT * (v);                                  \
    } while (0)

typedef void pass_fn(long n0, long n1, double *restrict x, double *restrict v, const double *restrict k);

/* One pass over the oscillators [n0, n1): S steps each, G at a time, the leftovers one by one. */
#define DEFINE_PASS(G, S)                                                                           \
    static void pass_##G##_##S(long n0, long n1, double *restrict x, double *restrict v,           \
                               const double *restrict k)                                           \
    {                                                                                               \
        long i = n0;                                                                                \
        for (; i + (G) <= n1; i += (G)) {                                                           \
            double xs[G], vs[G], ks[G];                                                             \
            for (int g = 0; g < (G); ++g) {                                                         \
                xs[g] = x[i + g]; vs[g] = v[i + g]; ks[g] = k[i + g];                               \
            }                                                                                       \
            for (int s = 0; s < (S); ++s)                                                           \
                for (int g = 0; g < (G); ++g)                                                       \
                    STEP(xs[g], vs[g], ks[g]);                                                      \
            for (int g = 0; g < (G); ++g) {                                                         \
                x[i + g] = xs[g]; v[i + g] = vs[g];                                                 \
            }                                                                                       \
        }                                                                                           \
        for (; i < n1; ++i) {                                                                       \
            double xi = x[i], vi = v[i];                                                            \
            const double ki = k[i];                                                                 \
            for (int s = 0; s < (S); ++s)                                                           \
                STEP(xi, vi, ki);                                                                   \
            x[i] = xi; v[i] = vi;                                                                   \
        }                                                                                           \
    }
#define DEFINE_STEPS(G) DEFINE_PASS(G, 1) DEFINE_PASS(G, 2) DEFINE_PASS(G, 4)
DEFINE_STEPS(4)
DEFINE_STEPS(8)
DEFINE_STEPS(16)
DEFINE_STEPS(32)

#define ROW(G) {pass_##G##_1, pass_##G##_2, pass_##G##_4}
static pass_fn *const PASSES[4][3] = {ROW(4), ROW(8), ROW(16), ROW(32)};

static void integrate(long n, long block, int steps, pass_fn *pass, double *restrict x, double *restrict v,
                      const double *restrict k)
{
    for (long n0 = 0; n0 < n; n0 += block) {
        const long n1 = n0 + block < n ? n0 + block : n;
        for (int t = 0; t < STEPS_TOTAL; t += steps)
            pass(n0, n1, x, v, k);
    }
}

static double clock_ms(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static double *alloc_doubles(long n)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, sizeof(double) * (size_t)n) != 0) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

static int index_of(int value, const int *options, int count)
{
    for (int i = 0; i < count; ++i)
        if (options[i] == value)
            return i;
    return -1;
}

int main(int argc, char **argv)
{
    static const int groups[] = {4, 8, 16, 32}, steps_options[] = {1, 2, 4};
    if (argc != 5) {
        fprintf(stderr, "usage: %s N BLOCK GROUP STEPS\n", argv[0]);
        return 2;
    }
    const long n = atol(argv[1]), block = atol(argv[2]);
    const int steps = atoi(argv[4]);
    const int g = index_of(atoi(argv[3]), groups, 4), s = index_of(steps, steps_options, 3);
    if (n < 1 || block < 1 || g < 0 || s < 0) {
        fprintf(stderr, "bad arguments: N=%s (>= 1) BLOCK=%s (>= 1) GROUP=%s (4, 8, 16, 32) STEPS=%s (1, 2, 4)\n",
                argv[1], argv[2], argv[3], argv[4]);
        return 2;
    }
    const char *env = getenv("STARCHART_REPEATS");
    const long repeats = env ? strtol(env, NULL, 10) : 1;
    if (repeats < 1) {
        fprintf(stderr, "STARCHART_REPEATS must be a positive integer, got '%s'\n", env);
        return 2;
    }
    double *x = alloc_doubles(n), *v = alloc_doubles(n), *k = alloc_doubles(n);
    for (long r = 0; r < repeats; ++r) {
        for (long i = 0; i < n; ++i) {
            x[i] = 1.0 + (double)(i % 17) / 16.0;
            v[i] = 0.0;
            k[i] = 1.0 + (double)(i % 29);
        }
        const double cpu_start = clock_ms(CLOCK_THREAD_CPUTIME_ID), start = clock_ms(CLOCK_MONOTONIC);
        integrate(n, block, steps, PASSES[g][s], x, v, k);
        const double stop = clock_ms(CLOCK_MONOTONIC), cpu_stop = clock_ms(CLOCK_THREAD_CPUTIME_ID);
        printf("{\"time_ms\": %.6f, \"cpu_ms\": %.6f}\n", stop - start, cpu_stop - cpu_start);
    }
    double checksum = 0.0;
    for (long i = 0; i < n; ++i)
        checksum += x[i];
    printf("checksum: %.17g\n", checksum);
    free(x);
    free(v);
    free(k);
    return 0;
}
