/* triad, CUDA: one thread per element, coalesced double loads and stores. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

__global__ void triad(long n, double s, const double *__restrict__ b, const double *__restrict__ c,
                      double *__restrict__ a) {
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = b[i] + s * c[i];
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 25);
    size_t bytes = n * sizeof(double);
    double *a = (double *)xapp_alloc(bytes), *b = (double *)xapp_alloc(bytes), *c = (double *)xapp_alloc(bytes);
    xapp_seed(2);
    xapp_fill_double(b, n, -1.0, 1.0);
    xapp_fill_double(c, n, -1.0, 1.0);
    double *da, *db, *dc;
    XAPP_CUDA(cudaMalloc(&da, bytes)); XAPP_CUDA(cudaMalloc(&db, bytes)); XAPP_CUDA(cudaMalloc(&dc, bytes));
    XAPP_CUDA(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dc, c, bytes, cudaMemcpyHostToDevice));
    int threads = 256;
    long blocks = (n + threads - 1) / threads;
    XAPP_TIME_KERNEL(best, triad<<<blocks, threads>>>(n, 3.0, db, dc, da));
    XAPP_CUDA(cudaMemcpy(a, da, bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_double(a, n));
    cudaFree(da); cudaFree(db); cudaFree(dc); free(a); free(b); free(c);
    return 0;
}
