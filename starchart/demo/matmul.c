/*
 * starchart demo kernel: tiled dense matrix multiply C = A * B (double, N x N).
 *
 * Every tuning parameter is a compile-time define (gcc -O3 -DTI=32 ...):
 *
 *   N            matrix size (default 256; tiles are clamped to N)
 *   TI, TJ, TK   tile sizes along i (rows of C), j (columns of C), k (the sum),
 *                powers of two dividing N
 *   ORDER        order of the three loops inside a tile (outermost first):
 *                0: i j k   1: i k j   2: j i k   3: j k i   4: k i j   5: k j i
 *   UNROLL       unroll factor of the innermost loop (GCC unroll pragma)
 *   TRANSPOSE_B  1: copy B transposed into BT first (inside the timed region),
 *                so B is read along k contiguously; 0: read B as it is
 *
 * Code-generation parameters (the demo leaves them at their defaults; the
 * large space of benchmarks/large_space.py tunes them too). They set GCC's
 * options for the kernel alone through pragmas, so one command line serves all:
 *
 *   OPT          3 (default, the command line's -O3) or 2: the kernel at -O2
 *   VECTORIZE    1 (default) or 0: the kernel without the loop vectoriser
 *   AVX2         0 (default, the command line's ISA) or 1: the kernel may use
 *                AVX2 and FMA (needs a CPU that has them; the inputs keep every
 *                product and sum exact, so a fused multiply-add changes nothing)
 *
 * Why these interact: the innermost loop decides which arrays are walked with
 * stride 1 and which with stride N (2 KiB at N = 256, so every step is a new
 * cache line and, N being a power of two, the same few cache sets).  j innermost
 * (ORDER 1, 4) streams B and C and vectorises; k innermost (ORDER 0, 2) is a
 * serial sum (no reassociation at -O3) that streams A, and B only when
 * transposed; i innermost (ORDER 3, 5) strides through A and C.  Transposing
 * B helps exactly the k-innermost orders and hurts the j-innermost ones; tile
 * sizes decide the trip count of the innermost loop (and so whether unrolling
 * or vectorising pays) and how much of the strided data stays in cache.
 *
 * All configurations add the products for one C[i][j] in increasing k, and the
 * inputs are small multiples of 1/16, so every configuration computes exactly
 * the same C (and checksum).
 *
 * Output: "time_ms: <ms>" per run (STARCHART_REPEATS runs, default 1; only the
 * kernel is timed), then "checksum: <weighted sum of C>".
 */
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef N
#define N 256
#endif
#ifndef TI
#define TI 32
#endif
#ifndef TJ
#define TJ 32
#endif
#ifndef TK
#define TK 32
#endif
#ifndef ORDER
#define ORDER 1
#endif
#ifndef UNROLL
#define UNROLL 1
#endif
#ifndef TRANSPOSE_B
#define TRANSPOSE_B 0
#endif

#ifndef OPT
#define OPT 3
#endif
#ifndef VECTORIZE
#define VECTORIZE 1
#endif
#ifndef AVX2
#define AVX2 0
#endif

/* A tile larger than the matrix is the whole matrix (lets tests use a small N). */
#define TI_ (TI < N ? TI : N)
#define TJ_ (TJ < N ? TJ : N)
#define TK_ (TK < N ? TK : N)

#if TI_ < 1 || TJ_ < 1 || TK_ < 1 || N % TI_ != 0 || N % TJ_ != 0 || N % TK_ != 0
#error "tile sizes TI, TJ, TK must be positive and divide N"
#endif
#if ORDER < 0 || ORDER > 5
#error "ORDER must be 0..5"
#endif
#if UNROLL < 1
#error "UNROLL must be >= 1"
#endif
#if OPT != 2 && OPT != 3
#error "OPT must be 2 or 3"
#endif

/* Only non-default values emit a pragma, so the demo's builds stay exactly as before. */
#if OPT == 2 && !VECTORIZE
#pragma GCC optimize("O2", "no-tree-vectorize")
#elif OPT == 2
#pragma GCC optimize("O2")
#elif !VECTORIZE
#pragma GCC optimize("no-tree-vectorize")
#endif

/* _Pragma needs one string literal: build "GCC unroll <UNROLL>" by stringizing. */
#define PRAGMA_(text) _Pragma(#text)
#define UNROLL_PRAGMA(n) PRAGMA_(GCC unroll n)

#define FOR_I for (int i = ii; i < ii + TI_; ++i)
#define FOR_J for (int j = jj; j < jj + TJ_; ++j)
#define FOR_K for (int k = kk; k < kk + TK_; ++k)

#if ORDER == 0
#define LOOPS(body) FOR_I FOR_J UNROLL_PRAGMA(UNROLL) FOR_K { body; }
#elif ORDER == 1
#define LOOPS(body) FOR_I FOR_K UNROLL_PRAGMA(UNROLL) FOR_J { body; }
#elif ORDER == 2
#define LOOPS(body) FOR_J FOR_I UNROLL_PRAGMA(UNROLL) FOR_K { body; }
#elif ORDER == 3
#define LOOPS(body) FOR_J FOR_K UNROLL_PRAGMA(UNROLL) FOR_I { body; }
#elif ORDER == 4
#define LOOPS(body) FOR_K FOR_I UNROLL_PRAGMA(UNROLL) FOR_J { body; }
#else
#define LOOPS(body) FOR_K FOR_J UNROLL_PRAGMA(UNROLL) FOR_I { body; }
#endif

#if TRANSPOSE_B
#define B_AT(k, j) bt[(size_t)(j) * N + (k)]
#else
#define B_AT(k, j) b[(size_t)(k) * N + (j)]
#endif

#if AVX2
__attribute__((target("avx2,fma")))
#endif
static void matmul(const double *restrict a, const double *restrict b, double *restrict bt,
                   double *restrict c)
{
    (void)bt;
#if TRANSPOSE_B
    for (int k = 0; k < N; ++k)
        for (int j = 0; j < N; ++j)
            bt[(size_t)j * N + k] = b[(size_t)k * N + j];
#endif
    memset(c, 0, sizeof(double) * N * N);
    /* Tiles in a fixed order; every tile adds its k-range to C in increasing k. */
    for (int ii = 0; ii < N; ii += TI_)
        for (int kk = 0; kk < N; kk += TK_)
            for (int jj = 0; jj < N; jj += TJ_)
                LOOPS(c[(size_t)i * N + j] += a[(size_t)i * N + k] * B_AT(k, j))
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static double *alloc_matrix(void)
{
    /* 64-byte aligned, so alignment does not vary between builds. */
    void *p = NULL;
    if (posix_memalign(&p, 64, sizeof(double) * N * N) != 0) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

int main(void)
{
    const char *env = getenv("STARCHART_REPEATS");
    long repeats = env ? strtol(env, NULL, 10) : 1;
    if (repeats < 1) {
        fprintf(stderr, "STARCHART_REPEATS must be a positive integer, got '%s'\n", env);
        return 2;
    }
    double *a = alloc_matrix(), *b = alloc_matrix(), *bt = alloc_matrix(), *c = alloc_matrix();
    /* Multiples of 1/16 in [-1, 1): products and sums stay exact in double. */
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) {
            a[(size_t)i * N + j] = ((i * 7 + j * 3 + i * j) % 31 - 15) / 16.0;
            b[(size_t)i * N + j] = ((i * 5 + j * 11 + 3 * i * j + 3) % 29 - 14) / 16.0;
        }
    memset(bt, 0, sizeof(double) * N * N);
    for (long r = 0; r < repeats; ++r) {
        double start = now_ms();
        matmul(a, b, bt, c);
        double stop = now_ms();
        printf("time_ms: %.6f\n", stop - start);
    }
    /* Weighted, so a transposed or misplaced result changes the checksum too. */
    double checksum = 0.0;
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j)
            checksum += c[(size_t)i * N + j] * (double)((i * 3 + j) % 7 + 1);
    printf("checksum: %.17g\n", checksum);
    free(a);
    free(b);
    free(bt);
    free(c);
    return 0;
}
