/* gather_random, CUDA: one thread per element; idx, w and out are coalesced, the table reads are
 * random (through the read-only cache). */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

__global__ void gather_random(long n, const int *__restrict__ idx, const float *__restrict__ src,
                              const float *__restrict__ w, float *__restrict__ out) {
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __ldg(&src[idx[i]]) * w[i];
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 24);
    long m = xapp_arg(argc, argv, 2, 1L << 24);
    int *idx = (int *)xapp_alloc((size_t)n * sizeof(int));
    float *src = (float *)xapp_alloc((size_t)m * sizeof(float)), *w = (float *)xapp_alloc((size_t)n * sizeof(float));
    float *out = (float *)xapp_alloc((size_t)n * sizeof(float));
    xapp_seed(16);
    xapp_fill_int(idx, n, 0, (int)m);
    xapp_fill_float(src, m, 0.0f, 1.0f);
    xapp_fill_float(w, n, 0.5f, 1.5f);
    int *didx;
    float *dsrc, *dw, *dout;
    XAPP_CUDA(cudaMalloc(&didx, n * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dsrc, m * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&dw, n * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&dout, n * sizeof(float)));
    XAPP_CUDA(cudaMemcpy(didx, idx, n * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dsrc, src, m * sizeof(float), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dw, w, n * sizeof(float), cudaMemcpyHostToDevice));
    int threads = 256;
    long blocks = (n + threads - 1) / threads;
    XAPP_TIME_KERNEL(best, gather_random<<<blocks, threads>>>(n, didx, dsrc, dw, dout));
    XAPP_CUDA(cudaMemcpy(out, dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(out, n));
    cudaFree(didx); cudaFree(dsrc); cudaFree(dw); cudaFree(dout);
    free(idx); free(src); free(w); free(out);
    return 0;
}
