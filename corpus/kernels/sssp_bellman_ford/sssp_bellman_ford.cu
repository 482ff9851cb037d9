/* sssp_bellman_ford, CUDA: one launch per relaxation round, one thread per vertex; a shorter path
 * is written with atomicMin and raises a "changed" flag, which the host reads back after every
 * round (4 bytes, inside the timing: the algorithm needs it to stop). Rounds relax in place, as
 * on the C side, though in another order, so the round count may differ; distances do not. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define INF 0x3f3f3f3f  /* "unreached": every byte 0x3f, and INF + weight does not overflow */
#define THREADS 256

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
__global__ void set_source(int src, int *dist) { dist[src] = 0; }

__global__ void relax(long n, const int *__restrict__ rowptr, const int *__restrict__ col,
                      const int *__restrict__ weight, int *dist, int *changed) {
    long u = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= n) return;
    int du = dist[u];
    if (du >= INF) return;
    int end = rowptr[u + 1];
    for (int e = rowptr[u]; e < end; e++) {
        int v = col[e], nd = du + weight[e];
        if (nd < dist[v] && atomicMin(&dist[v], nd) > nd) *changed = 1;
    }
}

/* All rounds; returns their number. */
static int bellman_ford(long n, const int *rowptr, const int *col, const int *weight, int src, int *dist,
                        int *changed) {
    XAPP_CUDA(cudaMemset(dist, 0x3f, (size_t)n * sizeof(int)));  /* every distance INF */
    set_source<<<1, 1>>>(src, dist);
    long blocks = (n + THREADS - 1) / THREADS;
    int rounds = 0, flag = 1;
    while (flag) {
        XAPP_CUDA(cudaMemset(changed, 0, sizeof(int)));
        relax<<<blocks, THREADS>>>(n, rowptr, col, weight, dist, changed);
        XAPP_CUDA(cudaMemcpy(&flag, changed, sizeof(int), cudaMemcpyDeviceToHost));
        rounds++;
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
    int *drowptr, *dcol, *dweight, *ddist, *dchanged;
    XAPP_CUDA(cudaMalloc(&drowptr, (n + 1) * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dcol, nnz * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dweight, nnz * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&ddist, n * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dchanged, sizeof(int)));
    XAPP_CUDA(cudaMemcpy(drowptr, rowptr, (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dcol, col, nnz * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dweight, weight, nnz * sizeof(int), cudaMemcpyHostToDevice));
    int rounds = 0;
    XAPP_TIME_KERNEL(best, rounds = bellman_ford(n, drowptr, dcol, dweight, 0, ddist, dchanged));
    (void)rounds;
    XAPP_CUDA(cudaMemcpy(dist, ddist, n * sizeof(int), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_int(dist, n));
    cudaFree(drowptr); cudaFree(dcol); cudaFree(dweight); cudaFree(ddist); cudaFree(dchanged);
    free(rowptr); free(col); free(weight); free(dist);
    return 0;
}
