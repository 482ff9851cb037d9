/* pagerank_push: ITERS push-style PageRank iterations on a random directed graph whose links favour
 * a few hubs: every vertex scatters rank/out-degree to its out-neighbours' accumulators
 * (category: graph: random scatter-adds, atomics on the GPU). A vertex's rank is computed from the
 * previous accumulation as it is pushed, so one iteration is one pass over the edges; the host loop
 * runs the iterations. */
#include "../../harness/xapp_harness.h"

#define DAMP 0.85f

/* Skewed vertex id in [0, n): the product of three uniform draws scaled to n, so low ids are hubs
 * (a power-law-like in-degree tail). */
static long skewed_vertex(long n) {
    uint64_t a = xapp_next() % (uint64_t)n, b = xapp_next() % (uint64_t)n, c = xapp_next() % (uint64_t)n;
    return (long)(a * b / (uint64_t)n * c / (uint64_t)n);
}

/* Deterministic directed random graph as out-edge CSR (shared by copy with the other side): vertex
 * u has a number of out-neighbours uniform in [1, 2*avg_deg - 1] (no dangling vertices), each a
 * skewed vertex, so a few hubs receive many links. */
static void make_out_csr(long n, int avg_deg, int **rowptr_out, int **col_out) {
    if ((double)n * (2.0 * avg_deg) > 2147483647.0 || avg_deg < 1) {
        fprintf(stderr, "xapp: n * 2*avg_deg must fit in an int, avg_deg >= 1 (got n=%ld, avg_deg=%d)\n", n, avg_deg);
        exit(2);
    }
    int *rowptr = (int *)xapp_alloc((size_t)(n + 1) * sizeof(int));
    rowptr[0] = 0;
    for (long v = 0; v < n; v++) rowptr[v + 1] = rowptr[v] + 1 + (int)(xapp_next() % (uint64_t)(2 * avg_deg - 1));
    int *col = (int *)xapp_alloc((size_t)rowptr[n] * sizeof(int));
    for (long e = 0; e < rowptr[n]; e++) col[e] = (int)skewed_vertex(n);
    *rowptr_out = rowptr;
    *col_out = col;
}
/* Returns the accumulator of the last iteration (acc0 or acc1): rank = base + DAMP * acc. */
float *pagerank_push(long n, int iters, const int *restrict rowptr, const int *restrict col,
                     const float *restrict inv_outdeg, float *acc0, float *acc1) {
    const float base = (1.0f - DAMP) / (float)n, r0 = 1.0f / (float)n;
    const float *prev = acc1;
    float *cur = acc0;
#pragma xapp trip(5)
    for (int it = 0; it < iters; it++) {
        cur = (it & 1) ? acc1 : acc0;
        memset(cur, 0, (size_t)n * sizeof(float));
        float *restrict out = cur;
#pragma xapp parallel trip(1048576)
        for (long u = 0; u < n; u++) {
            float r = it == 0 ? r0 : base + DAMP * prev[u];
            float c = r * inv_outdeg[u];
            int end = rowptr[u + 1];
#pragma xapp trip(8)
            for (int e = rowptr[u]; e < end; e++) out[col[e]] += c;
        }
        prev = cur;
    }
    return cur;
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 20);
    int avg_deg = (int)xapp_arg(argc, argv, 2, 8);
    int iters = (int)xapp_arg(argc, argv, 3, 5);
    int *rowptr, *col;
    xapp_seed(108);
    make_out_csr(n, avg_deg, &rowptr, &col);
    float *inv = (float *)xapp_alloc((size_t)n * sizeof(float)), *rank = (float *)xapp_alloc((size_t)n * sizeof(float));
    for (long u = 0; u < n; u++) inv[u] = 1.0f / (float)(rowptr[u + 1] - rowptr[u]);
    float *acc0 = (float *)xapp_alloc((size_t)n * sizeof(float)), *acc1 = (float *)xapp_alloc((size_t)n * sizeof(float));
    float *acc = acc0;
    XAPP_TIME_REGION(best, acc = pagerank_push(n, iters, rowptr, col, inv, acc0, acc1));
    const float base = (1.0f - DAMP) / (float)n;
    for (long v = 0; v < n; v++) rank[v] = (base + DAMP * acc[v]) * (float)n;  /* ranks scaled to mean 1 */
    xapp_report(best, xapp_checksum_float(rank, n));
    free(rowptr); free(col); free(inv); free(rank); free(acc0); free(acc1);
    return 0;
}
