/* sssp_pull: one pull-style (Jacobi) relaxation sweep of single-source shortest paths on a random
 * directed graph with a power-law-like in-degree: each vertex takes the minimum of its distance and
 * its in-neighbours' distances plus the edge weights (category: graph: random gathers, in-degrees
 * from 1 to a few thousand). Half the vertices start unreached (INF). */
#include "../../harness/xapp_harness.h"

#define INF 1.0e30f  /* "unreached": finite, so -ffast-math may assume no infinities */

/* Skewed vertex id in [0, n): the product of three uniform draws scaled to n, so low ids are hubs
 * (a power-law-like degree tail). */
static long skewed_vertex(long n) {
    uint64_t a = xapp_next() % (uint64_t)n, b = xapp_next() % (uint64_t)n, c = xapp_next() % (uint64_t)n;
    return (long)(a * b / (uint64_t)n * c / (uint64_t)n);
}

/* Deterministic directed random graph as in-edge CSR (shared by copy with the other side): m edges
 * u -> v with v skewed (hubs receive many edges) and u uniform; rowptr/col list the in-neighbours
 * u of each v, in generation order. */
static void make_in_csr(long n, long m, int **rowptr_out, int **col_out) {
    if ((double)m > 2147483647.0) {
        fprintf(stderr, "xapp: m must fit in an int (got m=%ld)\n", m);
        exit(2);
    }
    int *dst = (int *)xapp_alloc((size_t)m * sizeof(int)), *src = (int *)xapp_alloc((size_t)m * sizeof(int));
    for (long e = 0; e < m; e++) {
        dst[e] = (int)skewed_vertex(n);
        src[e] = (int)(xapp_next() % (uint64_t)n);
    }
    int *rowptr = (int *)calloc((size_t)n + 1, sizeof(int));
    int *col = (int *)xapp_alloc((size_t)m * sizeof(int));
    for (long e = 0; e < m; e++) rowptr[dst[e] + 1]++;
    for (long v = 0; v < n; v++) rowptr[v + 1] += rowptr[v];
    int *fill = (int *)xapp_alloc((size_t)n * sizeof(int));
    memcpy(fill, rowptr, (size_t)n * sizeof(int));
    for (long e = 0; e < m; e++) col[fill[dst[e]]++] = src[e];
    free(dst); free(src); free(fill);
    *rowptr_out = rowptr;
    *col_out = col;
}
void sssp_pull(long n, const int *restrict rowptr, const int *restrict col, const float *restrict weight,
               const float *restrict dist_in, float *restrict dist_out) {
#pragma xapp parallel trip(2097152)
    for (long v = 0; v < n; v++) {
        float d = dist_in[v];
        int end = rowptr[v + 1];
#pragma xapp trip(12)
        for (int e = rowptr[v]; e < end; e++) {
            float c = dist_in[col[e]] + weight[e];
            d = c < d ? c : d;
        }
        dist_out[v] = d;
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 21);
    long avg_deg = xapp_arg(argc, argv, 2, 12);
    int *rowptr, *col;
    xapp_seed(104);
    make_in_csr(n, n * avg_deg, &rowptr, &col);
    long nnz = rowptr[n];
    float *weight = (float *)xapp_alloc((size_t)nnz * sizeof(float));
    float *dist_in = (float *)xapp_alloc((size_t)n * sizeof(float)), *dist_out = (float *)xapp_alloc((size_t)n * sizeof(float));
    int *reached = (int *)xapp_alloc((size_t)n * sizeof(int));
    xapp_fill_float(weight, nnz, 1.0f, 9.0f);  /* a span of 8: exact with or without FMA contraction */
    xapp_fill_float(dist_in, n, 0.0f, 100.0f);
    xapp_fill_int(reached, n, 0, 2);  /* a search under way: half the vertices still unreached */
    for (long v = 0; v < n; v++) if (!reached[v]) dist_in[v] = INF;
    XAPP_TIME_REGION(best, sssp_pull(n, rowptr, col, weight, dist_in, dist_out));
    for (long v = 0; v < n; v++) if (dist_out[v] >= INF) dist_out[v] = -1.0f;  /* unreached: -1 in the checksum */
    xapp_report(best, xapp_checksum_float(dist_out, n));
    free(rowptr); free(col); free(weight); free(dist_in); free(dist_out); free(reached);
    return 0;
}
