/* sssp_bellman_ford: single-source shortest paths by Bellman-Ford relaxation rounds on a random
 * directed graph with integer weights (category: graph). Each round relaxes every out-edge of every
 * reached vertex; the host loop repeats rounds until one changes nothing. The C side relaxes in
 * place (a round sees this round's updates), so it may need fewer rounds than the GPU; the final
 * distances are the shortest paths either way. */
#include "../../harness/xapp_harness.h"

#define INF 0x3f3f3f3f  /* "unreached": every byte 0x3f, and INF + weight does not overflow */

/* Deterministic directed random graph in CSR form (shared by copy with the other side): vertex v
 * has a number of out-neighbours uniform in [1, 2*avg_deg - 1], each uniform over [0, n). */
static void make_directed(long n, int avg_deg, int **rowptr_out, int **col_out) {
    if ((double)n * (2.0 * avg_deg) > 2147483647.0 || avg_deg < 1) {
        fprintf(stderr, "xapp: n * 2*avg_deg must fit in an int, avg_deg >= 1 (got n=%ld, avg_deg=%d)\n", n, avg_deg);
        exit(2);
    }
    int *rowptr = (int *)xapp_alloc((size_t)(n + 1) * sizeof(int));
    rowptr[0] = 0;
    for (long v = 0; v < n; v++) rowptr[v + 1] = rowptr[v] + 1 + (int)(xapp_next() % (uint64_t)(2 * avg_deg - 1));
    int *col = (int *)xapp_alloc((size_t)rowptr[n] * sizeof(int));
    for (long e = 0; e < rowptr[n]; e++) col[e] = (int)(xapp_next() % (uint64_t)n);
    *rowptr_out = rowptr;
    *col_out = col;
}
/* dist[v] = length of the shortest path from src (INF when unreachable); returns the rounds run. */
int sssp_bellman_ford(long n, const int *restrict rowptr, const int *restrict col, const int *restrict weight,
                      int src, int *restrict dist) {
    for (long v = 0; v < n; v++) dist[v] = INF;
    dist[src] = 0;
    int rounds = 0, changed = 1;
#pragma xapp trip(16)
    for (; changed; rounds++) {
        changed = 0;
#pragma xapp parallel trip(524288)
        for (long u = 0; u < n; u++) {
            int du = dist[u];
#pragma xapp prob(0.91)
            if (du < INF) {
                int end = rowptr[u + 1];
#pragma xapp trip(8)
                for (int e = rowptr[u]; e < end; e++) {
                    int v = col[e], nd = du + weight[e];
#pragma xapp prob(0.058)
                    if (nd < dist[v]) {
                        dist[v] = nd;
                        changed = 1;
                    }
                }
            }
        }
    }
    return rounds;
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 19);
    int avg_deg = (int)xapp_arg(argc, argv, 2, 8);
    int *rowptr, *col;
    xapp_seed(103);
    make_directed(n, avg_deg, &rowptr, &col);
    long nnz = rowptr[n];
    int *weight = (int *)xapp_alloc((size_t)nnz * sizeof(int)), *dist = (int *)xapp_alloc((size_t)n * sizeof(int));
    xapp_fill_int(weight, nnz, 1, 100);
    XAPP_TIME_REGION(best, sssp_bellman_ford(n, rowptr, col, weight, 0, dist));
    xapp_report(best, xapp_checksum_int(dist, n));
    free(rowptr); free(col); free(weight); free(dist);
    return 0;
}
