/* spmv_csr_small: input-size variant of corpus kernel spmv_csr (209715 rows, a tenth of spmv_csr's); same code, other default args and trip counts. */
/* spmv_csr, CUDA: "vector CSR", a group of GROUP lanes per row: the lanes read the row's
 * nonzeros coalesced and reduce with warp shuffles (summation order differs from C). */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define GROUP 8  /* lanes per row: about half the average row length */

/* Deterministic random CSR structure (shared by copy with the .c side): row i holds a number of
 * entries uniform in [0, 2*avg_deg], at columns uniform over [0, n). */
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

__global__ void spmv_csr_vector(long n, const int *__restrict__ rowptr, const int *__restrict__ col,
                                const float *__restrict__ val, const float *__restrict__ x, float *__restrict__ y) {
    long tid = (long)blockIdx.x * blockDim.x + threadIdx.x;
    long row = tid / GROUP;
    int lane = (int)(tid % GROUP);
    float sum = 0.0f;
    if (row < n) {
        for (int e = rowptr[row] + lane; e < rowptr[row + 1]; e += GROUP) sum += val[e] * __ldg(&x[col[e]]);
    }
    /* every lane of the warp reaches the shuffles (no early return), as the full mask requires */
    for (int off = GROUP / 2; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, off, GROUP);
    if (row < n && lane == 0) y[row] = sum;
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 209715L);
    int avg_deg = (int)xapp_arg(argc, argv, 2, 16);
    int *rowptr, *col;
    xapp_seed(11);
    make_csr(n, avg_deg, &rowptr, &col);
    long nnz = rowptr[n];
    float *val = (float *)xapp_alloc((size_t)nnz * sizeof(float));
    float *x = (float *)xapp_alloc((size_t)n * sizeof(float)), *y = (float *)xapp_alloc((size_t)n * sizeof(float));
    xapp_fill_float(val, nnz, 0.0f, 1.0f);
    xapp_fill_float(x, n, 0.0f, 1.0f);
    int *drowptr, *dcol;
    float *dval, *dx, *dy;
    XAPP_CUDA(cudaMalloc(&drowptr, (n + 1) * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dcol, (nnz ? nnz : 1) * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dval, (nnz ? nnz : 1) * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&dx, n * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&dy, n * sizeof(float)));
    XAPP_CUDA(cudaMemcpy(drowptr, rowptr, (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dcol, col, nnz * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dval, val, nnz * sizeof(float), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice));
    int threads = 256;
    long blocks = (n * GROUP + threads - 1) / threads;
    XAPP_TIME_KERNEL(best, spmv_csr_vector<<<blocks, threads>>>(n, drowptr, dcol, dval, dx, dy));
    XAPP_CUDA(cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(y, n));
    cudaFree(drowptr); cudaFree(dcol); cudaFree(dval); cudaFree(dx); cudaFree(dy);
    free(rowptr); free(col); free(val); free(x); free(y);
    return 0;
}
