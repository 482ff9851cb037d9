/* spmv_coo, CUDA: a memset of y and one thread per nonzero: coalesced reads of the entry, a gather
 * from x, an atomicAdd into y (the additions happen in another order than on the C side). */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define THREADS 256

__global__ void spmv_coo(long nnz, const int *__restrict__ row, const int *__restrict__ col,
                         const float *__restrict__ val, const float *__restrict__ x, float *y) {
    long e = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e < nnz) atomicAdd(&y[row[e]], val[e] * __ldg(&x[col[e]]));
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 20);
    long nnz = xapp_arg(argc, argv, 2, 1L << 24);
    int *row = (int *)xapp_alloc((size_t)nnz * sizeof(int)), *col = (int *)xapp_alloc((size_t)nnz * sizeof(int));
    float *val = (float *)xapp_alloc((size_t)nnz * sizeof(float));
    float *x = (float *)xapp_alloc((size_t)n * sizeof(float)), *y = (float *)xapp_alloc((size_t)n * sizeof(float));
    xapp_seed(112);
    /* an unsorted coordinate list: entries in random order, rows and columns uniform over [0, n) */
    xapp_fill_int(row, nnz, 0, (int)n);
    xapp_fill_int(col, nnz, 0, (int)n);
    xapp_fill_float(val, nnz, 0.0f, 1.0f);
    xapp_fill_float(x, n, 0.0f, 1.0f);
    int *drow, *dcol;
    float *dval, *dx, *dy;
    XAPP_CUDA(cudaMalloc(&drow, nnz * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dcol, nnz * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dval, nnz * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&dx, n * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&dy, n * sizeof(float)));
    XAPP_CUDA(cudaMemcpy(drow, row, nnz * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dcol, col, nnz * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dval, val, nnz * sizeof(float), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice));
    long blocks = (nnz + THREADS - 1) / THREADS;
    XAPP_TIME_KERNEL(best, XAPP_CUDA(cudaMemset(dy, 0, n * sizeof(float)));
                           spmv_coo<<<blocks, THREADS>>>(nnz, drow, dcol, dval, dx, dy));
    XAPP_CUDA(cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(y, n));
    cudaFree(drow); cudaFree(dcol); cudaFree(dval); cudaFree(dx); cudaFree(dy);
    free(row); free(col); free(val); free(x); free(y);
    return 0;
}
