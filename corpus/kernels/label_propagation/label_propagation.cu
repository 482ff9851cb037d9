/* label_propagation, CUDA: one launch per sweep (ping-pong buffers), one thread per vertex;
 * neighbour labels are gathered through the read-only cache. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

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

__global__ void propagate(long n, const int *__restrict__ rowptr, const int *__restrict__ col,
                          const int *__restrict__ src, int *__restrict__ dst) {
    long v = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    int m = src[v];
    int end = rowptr[v + 1];
    for (int e = rowptr[v]; e < end; e++) m = min(m, __ldg(&src[col[e]]));
    dst[v] = m;
}

/* All sweeps; the result is in buf[(iters - 1) & 1]. */
static void run(long n, int iters, const int *rowptr, const int *col, const int *label0, int *buf0, int *buf1) {
    int threads = 256;
    long blocks = (n + threads - 1) / threads;
    const int *src = label0;
    for (int it = 0; it < iters; it++) {
        int *dst = (it & 1) ? buf1 : buf0;
        propagate<<<blocks, threads>>>(n, rowptr, col, src, dst);
        src = dst;
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 20);
    int avg_deg = (int)xapp_arg(argc, argv, 2, 8);
    int iters = (int)xapp_arg(argc, argv, 3, 5);
    int *rowptr, *col;
    xapp_seed(14);
    make_csr(n, avg_deg, &rowptr, &col);
    long nnz = rowptr[n];
    int *label0 = (int *)xapp_alloc((size_t)n * sizeof(int)), *result = (int *)xapp_alloc((size_t)n * sizeof(int));
    xapp_fill_int(label0, n, 0, 1 << 30);
    int *drowptr, *dcol, *dlabel0, *dbuf0, *dbuf1;
    XAPP_CUDA(cudaMalloc(&drowptr, (n + 1) * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dcol, (nnz ? nnz : 1) * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dlabel0, n * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dbuf0, n * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dbuf1, n * sizeof(int)));
    XAPP_CUDA(cudaMemcpy(drowptr, rowptr, (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dcol, col, nnz * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dlabel0, label0, n * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_TIME_KERNEL(best, run(n, iters, drowptr, dcol, dlabel0, dbuf0, dbuf1));
    XAPP_CUDA(cudaMemcpy(result, ((iters - 1) & 1) ? dbuf1 : dbuf0, n * sizeof(int), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_int(result, n));
    cudaFree(drowptr); cudaFree(dcol); cudaFree(dlabel0); cudaFree(dbuf0); cudaFree(dbuf1);
    free(rowptr); free(col); free(label0); free(result);
    return 0;
}
