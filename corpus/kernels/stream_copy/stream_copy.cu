/* stream_copy, CUDA: one thread per element, a warp moves 256 contiguous bytes in and out. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define THREADS 256

__global__ void stream_copy(long n, const double *__restrict__ a, double *__restrict__ c) {
    long i = (long)blockIdx.x * THREADS + threadIdx.x;
    if (i < n) c[i] = a[i];
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 25);
    size_t bytes = n * sizeof(double);
    double *a = (double *)xapp_alloc(bytes), *c = (double *)xapp_alloc(bytes);
    xapp_seed(501);
    xapp_fill_double(a, n, -1.0, 1.0);
    double *da, *dc;
    XAPP_CUDA(cudaMalloc(&da, bytes)); XAPP_CUDA(cudaMalloc(&dc, bytes));
    XAPP_CUDA(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    long blocks = (n + THREADS - 1) / THREADS;
    XAPP_TIME_KERNEL(best, stream_copy<<<blocks, THREADS>>>(n, da, dc));
    XAPP_CUDA(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_double(c, n));
    cudaFree(da); cudaFree(dc); free(a); free(c);
    return 0;
}
