/* xapp_harness.h: the shared harness of every corpus kernel, C and CUDA host code alike.
 *
 * A corpus program
 *   1. reads its problem size from argv (xapp_arg), defaulting to the size in corpus.yaml;
 *   2. fills its inputs with xapp_fill_* (the same deterministic generator on both sides,
 *      so the C and CUDA versions compute on identical data);
 *   3. runs the marked region XAPP_REPEATS times (env, default 5), each time from the same
 *      inputs, timing each run (C: xapp_now(); CUDA: cudaEvent around the kernel launches
 *      only; host<->device copies are outside the timing, as in the thesis, Assumption 3);
 *   4. prints one line:  XAPP time_s=<minimum seconds over repeats> checksum=<value>
 *      where the checksum (xapp_checksum_*) folds the region's output.
 * The measurement script compares the two sides' checksums with a relative tolerance.
 */
#ifndef XAPP_HARNESS_H
#define XAPP_HARNESS_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t xapp_rng_state = 0x9E3779B97F4A7C15ULL;

/* Reset the generator; every program calls it once with its kernel's seed. */
static inline void xapp_seed(uint64_t seed) { xapp_rng_state = seed * 0x9E3779B97F4A7C15ULL + 1; }

/* splitmix64: small, fast, identical on every compiler. */
static inline uint64_t xapp_next(void) {
    uint64_t z = (xapp_rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Uniform double in [0, 1). */
static inline double xapp_uniform(void) { return (double)(xapp_next() >> 11) * (1.0 / 9007199254740992.0); }

/* The product goes through a volatile so that no compiler fuses it with the sum: the C side is built
 * -march=native (FMA) and the CUDA side's host code is not, and both must draw identical inputs. */
static inline void xapp_fill_float(float *a, size_t n, float lo, float hi) {
    for (size_t i = 0; i < n; i++) {
        volatile float scaled = (hi - lo) * (float)xapp_uniform();
        a[i] = lo + scaled;
    }
}
static inline void xapp_fill_double(double *a, size_t n, double lo, double hi) {
    for (size_t i = 0; i < n; i++) {
        volatile double scaled = (hi - lo) * xapp_uniform();
        a[i] = lo + scaled;
    }
}
/* Integers uniform in [lo, hi). */
static inline void xapp_fill_int(int *a, size_t n, int lo, int hi) {
    for (size_t i = 0; i < n; i++) a[i] = lo + (int)(xapp_next() % (uint64_t)(hi - lo));
}

/* Bytes uniform in [lo, hi] (images, cellular automata). */
static inline void xapp_fill_uchar(unsigned char *a, size_t n, int lo, int hi) {
    for (size_t i = 0; i < n; i++) a[i] = (unsigned char)(lo + (int)(xapp_next() % (uint64_t)(hi - lo + 1)));
}

/* Checksums weight each element by a small position factor so that permuted results differ. */
static inline double xapp_checksum_float(const float *a, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += (double)a[i] * (double)(1 + i % 7);
    return s;
}
static inline double xapp_checksum_double(const double *a, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += a[i] * (double)(1 + i % 7);
    return s;
}
static inline double xapp_checksum_int(const int *a, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += (double)a[i] * (double)(1 + i % 7);
    return s;
}

static inline double xapp_checksum_uchar(const unsigned char *a, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += (double)a[i] * (double)(1 + i % 7);
    return s;
}

/* Wall-clock seconds (monotonic). */
static inline double xapp_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Positional integer argument i (1-based), or dflt when absent. */
static inline long xapp_arg(int argc, char **argv, int i, long dflt) {
    if (argc > i) {
        char *end = NULL;
        long v = strtol(argv[i], &end, 10);
        if (end && *end == '\0' && v > 0) return v;
        fprintf(stderr, "xapp: argument %d must be a positive integer, got '%s'\n", i, argv[i]);
        exit(2);
    }
    return dflt;
}

/* Number of timed repeats: $XAPP_REPEATS, default 5. */
static inline int xapp_repeats(void) {
    const char *r = getenv("XAPP_REPEATS");
    int n = r ? atoi(r) : 5;
    return n > 0 ? n : 5;
}

/* Allocate or die with a message naming the size. */
static inline void *xapp_alloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) { fprintf(stderr, "xapp: cannot allocate %zu bytes\n", bytes); exit(3); }
    return p;
}

/* C side: time the statement(s) given after BEST XAPP_REPEATS times with xapp_now();
 * the minimum in seconds goes to the double BEST. Like XAPP_TIME_KERNEL, every run must
 * start from the same inputs (write outputs only, or reset inside the statements). */
#define XAPP_TIME_REGION(BEST, ...)                                                      \
    double BEST = INFINITY;                                                              \
    do {                                                                                 \
        for (int r_ = 0; r_ < xapp_repeats(); r_++) {                                    \
            double t0_ = xapp_now();                                                     \
            __VA_ARGS__;                                                                 \
            double t_ = xapp_now() - t0_;                                                \
            if (t_ < BEST) BEST = t_;                                                    \
        }                                                                                \
    } while (0)

static inline void xapp_report(double seconds, double checksum) {
    printf("XAPP time_s=%.9g checksum=%.17g\n", seconds, checksum);
}

#endif
