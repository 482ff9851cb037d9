/* pagerank_pull: ITERS pull-style PageRank iterations on a random directed graph: each vertex sums
 * rank/out-degree over its in-neighbours (category: irregular: random gathers, varying degree).
 * The host loop over iterations is serial; the band is the vertex loop of one iteration. */
#include "../../harness/xapp_harness.h"

#define DAMP 0.85f

/* Deterministic random graph in CSR form (shared by copy with the .cu side): vertex v has a number
 * of in-neighbours uniform in [0, 2*avg_deg], each uniform over [0, n). */
static void make_csr(long n, int avg_deg, int **rowptr_out, int **col_out) {
    if ((double)n * (2.0 * avg_deg + 1.0) > 2147483647.0) {
        fprintf(stderr, "xapp: n * (2*avg_deg+1) must fit in an int (got n=%ld, avg_deg=%d)\n", n, avg_deg);
        exit(2);
    }
    int *rowptr = (int *)xapp_alloc((size_t)(n + 1) * sizeof(int));
    rowptr[0] = 0;
    for (long i = 0; i < n; i++) rowptr[i + 1] = rowptr[i] + (int)(xapp_next() % (uint64_t)(2 * avg_deg + 1));
    int *col = (int *)xapp_alloc((size_t)rowptr[n] * sizeof(int));
    for (long e = 0; e < rowptr[n]; e++) col[e] = (int)(xapp_next() % (uint64_t)n);
    *rowptr_out = rowptr;
    *col_out = col;
}

/* 1/out-degree of every vertex (0 for vertices nobody links from), from the in-edge lists. */
static float *inverse_out_degree(long n, const int *rowptr, const int *col) {
    int *deg = (int *)calloc((size_t)n, sizeof(int));
    float *inv = (float *)xapp_alloc((size_t)n * sizeof(float));
    for (long e = 0; e < rowptr[n]; e++) deg[col[e]]++;
    for (long v = 0; v < n; v++) inv[v] = deg[v] ? 1.0f / (float)deg[v] : 0.0f;
    free(deg);
    return inv;
}

/* Runs `iters` iterations from pr0 (left unchanged), alternating between buf0 and buf1;
 * returns the buffer holding the last iteration. Each iteration first scales the ranks by
 * 1/out-degree once per vertex (contrib, scratch of n floats), so that the edge loop gathers one
 * value per edge instead of two and multiplies nothing. */
float *pagerank_pull(long n, int iters, const int *restrict rowptr, const int *restrict col,
                     const float *restrict inv_outdeg, const float *restrict pr0, float *restrict buf0,
                     float *restrict buf1, float *restrict contrib) {
    const float *src = pr0;
    float *dst = buf0;
    float base = (1.0f - DAMP) / (float)n;
#pragma xapp trip(5)
    for (int it = 0; it < iters; it++) {
        dst = (it & 1) ? buf1 : buf0;
        for (long u = 0; u < n; u++) contrib[u] = src[u] * inv_outdeg[u];
#pragma xapp parallel trip(524288)
        for (long v = 0; v < n; v++) {
            float sum = 0.0f;
#pragma xapp trip(16)
            for (int e = rowptr[v]; e < rowptr[v + 1]; e++) sum += contrib[col[e]];
            dst[v] = base + DAMP * sum;
        }
        src = dst;
    }
    return dst;
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 19);
    int avg_deg = (int)xapp_arg(argc, argv, 2, 16);
    int iters = (int)xapp_arg(argc, argv, 3, 5);
    int *rowptr, *col;
    xapp_seed(13);
    make_csr(n, avg_deg, &rowptr, &col);
    float *inv = inverse_out_degree(n, rowptr, col);
    float *pr0 = (float *)xapp_alloc((size_t)n * sizeof(float));
    float *buf0 = (float *)xapp_alloc((size_t)n * sizeof(float)), *buf1 = (float *)xapp_alloc((size_t)n * sizeof(float));
    float *contrib = (float *)xapp_alloc((size_t)n * sizeof(float));
    for (long v = 0; v < n; v++) pr0[v] = 1.0f / (float)n;
    float *result = buf0;
    double best = INFINITY;
    for (int r = 0; r < xapp_repeats(); r++) {
        double t0 = xapp_now();
        result = pagerank_pull(n, iters, rowptr, col, inv, pr0, buf0, buf1, contrib);
        double t = xapp_now() - t0;
        if (t < best) best = t;
    }
    /* ranks are about 1/n: scale by n so the checksum is of order n */
    for (long v = 0; v < n; v++) result[v] *= (float)n;
    xapp_report(best, xapp_checksum_float(result, n));
    free(rowptr); free(col); free(inv); free(pr0); free(buf0); free(buf1); free(contrib);
    return 0;
}
