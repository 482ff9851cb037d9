/* pagerank_push, CUDA: per iteration a memset of the accumulator and one launch with a thread per
 * vertex that pushes its rank share to its out-neighbours with atomicAdd (hubs see contention; the
 * order of the float additions differs from the C side). */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define DAMP 0.85f
#define THREADS 256

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
__global__ void push(long n, int first, float base, float r0, const int *__restrict__ rowptr,
                     const int *__restrict__ col, const float *__restrict__ inv_outdeg,
                     const float *__restrict__ prev, float *cur) {
    long u = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= n) return;
    float r = first ? r0 : base + DAMP * prev[u];
    float c = r * inv_outdeg[u];
    int end = rowptr[u + 1];
    for (int e = rowptr[u]; e < end; e++) atomicAdd(&cur[col[e]], c);
}

/* All iterations; returns the last accumulator. */
static float *pagerank(long n, int iters, const int *rowptr, const int *col, const float *inv, float *acc0,
                       float *acc1) {
    const float base = (1.0f - DAMP) / (float)n, r0 = 1.0f / (float)n;
    long blocks = (n + THREADS - 1) / THREADS;
    const float *prev = acc1;
    float *cur = acc0;
    for (int it = 0; it < iters; it++) {
        cur = (it & 1) ? acc1 : acc0;
        XAPP_CUDA(cudaMemset(cur, 0, (size_t)n * sizeof(float)));
        push<<<blocks, THREADS>>>(n, it == 0, base, r0, rowptr, col, inv, prev, cur);
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
    long nnz = rowptr[n];
    float *inv = (float *)xapp_alloc((size_t)n * sizeof(float)), *rank = (float *)xapp_alloc((size_t)n * sizeof(float));
    for (long u = 0; u < n; u++) inv[u] = 1.0f / (float)(rowptr[u + 1] - rowptr[u]);
    int *drowptr, *dcol;
    float *dinv, *dacc0, *dacc1, *dacc = NULL;
    XAPP_CUDA(cudaMalloc(&drowptr, (n + 1) * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dcol, nnz * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dinv, n * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&dacc0, n * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&dacc1, n * sizeof(float)));
    XAPP_CUDA(cudaMemcpy(drowptr, rowptr, (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dcol, col, nnz * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dinv, inv, n * sizeof(float), cudaMemcpyHostToDevice));
    XAPP_TIME_KERNEL(best, dacc = pagerank(n, iters, drowptr, dcol, dinv, dacc0, dacc1));
    float *acc = (float *)xapp_alloc((size_t)n * sizeof(float));
    XAPP_CUDA(cudaMemcpy(acc, dacc, n * sizeof(float), cudaMemcpyDeviceToHost));
    const float base = (1.0f - DAMP) / (float)n;
    for (long v = 0; v < n; v++) rank[v] = (base + DAMP * acc[v]) * (float)n;  /* ranks scaled to mean 1 */
    xapp_report(best, xapp_checksum_float(rank, n));
    cudaFree(drowptr); cudaFree(dcol); cudaFree(dinv); cudaFree(dacc0); cudaFree(dacc1);
    free(rowptr); free(col); free(inv); free(rank); free(acc);
    return 0;
}
