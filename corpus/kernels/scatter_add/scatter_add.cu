/* scatter_add, CUDA: one thread per input element, global atomicAdd into the table (the table
 * is too large for shared-memory privatisation); the table is zeroed inside the timed region. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

__global__ void scatter_add(long n, const int *__restrict__ idx, const int *__restrict__ val, int *out) {
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&out[idx[i]], val[i]);
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 25);
    long m = xapp_arg(argc, argv, 2, 1L << 20);
    int *idx = (int *)xapp_alloc((size_t)n * sizeof(int)), *val = (int *)xapp_alloc((size_t)n * sizeof(int));
    int *out = (int *)xapp_alloc((size_t)m * sizeof(int));
    xapp_seed(17);
    xapp_fill_int(idx, n, 0, (int)m);
    xapp_fill_int(val, n, 0, 100);
    int *didx, *dval, *dout;
    XAPP_CUDA(cudaMalloc(&didx, n * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dval, n * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dout, m * sizeof(int)));
    XAPP_CUDA(cudaMemcpy(didx, idx, n * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dval, val, n * sizeof(int), cudaMemcpyHostToDevice));
    int threads = 256;
    long blocks = (n + threads - 1) / threads;
    XAPP_TIME_KERNEL(best, XAPP_CUDA(cudaMemsetAsync(dout, 0, m * sizeof(int)));
                           scatter_add<<<blocks, threads>>>(n, didx, dval, dout));
    XAPP_CUDA(cudaMemcpy(out, dout, m * sizeof(int), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_int(out, m));
    cudaFree(didx); cudaFree(dval); cudaFree(dout);
    free(idx); free(val); free(out);
    return 0;
}
