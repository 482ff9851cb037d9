/* pagerank_pull, CUDA: one launch per iteration (ping-pong buffers), one thread per vertex;
 * rank and 1/out-degree gathers go through the read-only cache. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define DAMP 0.85f

/* Deterministic random graph in CSR form (shared by copy with the .c side): vertex v has a number
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

__global__ void pagerank_iteration(long n, float base, const int *__restrict__ rowptr, const int *__restrict__ col,
                                   const float *__restrict__ inv_outdeg, const float *__restrict__ src,
                                   float *__restrict__ dst) {
    long v = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    float sum = 0.0f;
    int end = rowptr[v + 1];
    for (int e = rowptr[v]; e < end; e++) {
        int u = col[e];
        sum += __ldg(&src[u]) * __ldg(&inv_outdeg[u]);
    }
    dst[v] = base + DAMP * sum;
}

/* All iterations; the result is in buf[(iters - 1) & 1]. */
static void run(long n, int iters, const int *rowptr, const int *col, const float *inv, const float *pr0,
                float *buf0, float *buf1) {
    int threads = 256;
    long blocks = (n + threads - 1) / threads;
    float base = (1.0f - DAMP) / (float)n;
    const float *src = pr0;
    for (int it = 0; it < iters; it++) {
        float *dst = (it & 1) ? buf1 : buf0;
        pagerank_iteration<<<blocks, threads>>>(n, base, rowptr, col, inv, src, dst);
        src = dst;
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 19);
    int avg_deg = (int)xapp_arg(argc, argv, 2, 16);
    int iters = (int)xapp_arg(argc, argv, 3, 5);
    int *rowptr, *col;
    xapp_seed(13);
    make_csr(n, avg_deg, &rowptr, &col);
    long nnz = rowptr[n];
    float *inv = inverse_out_degree(n, rowptr, col);
    float *pr0 = (float *)xapp_alloc((size_t)n * sizeof(float)), *result = (float *)xapp_alloc((size_t)n * sizeof(float));
    for (long v = 0; v < n; v++) pr0[v] = 1.0f / (float)n;
    int *drowptr, *dcol;
    float *dinv, *dpr0, *dbuf0, *dbuf1;
    XAPP_CUDA(cudaMalloc(&drowptr, (n + 1) * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dcol, (nnz ? nnz : 1) * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dinv, n * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&dpr0, n * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&dbuf0, n * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&dbuf1, n * sizeof(float)));
    XAPP_CUDA(cudaMemcpy(drowptr, rowptr, (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dcol, col, nnz * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dinv, inv, n * sizeof(float), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dpr0, pr0, n * sizeof(float), cudaMemcpyHostToDevice));
    XAPP_TIME_KERNEL(best, run(n, iters, drowptr, dcol, dinv, dpr0, dbuf0, dbuf1));
    XAPP_CUDA(cudaMemcpy(result, ((iters - 1) & 1) ? dbuf1 : dbuf0, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (long v = 0; v < n; v++) result[v] *= (float)n;
    xapp_report(best, xapp_checksum_float(result, n));
    cudaFree(drowptr); cudaFree(dcol); cudaFree(dinv); cudaFree(dpr0); cudaFree(dbuf0); cudaFree(dbuf1);
    free(rowptr); free(col); free(inv); free(pr0); free(result);
    return 0;
}
