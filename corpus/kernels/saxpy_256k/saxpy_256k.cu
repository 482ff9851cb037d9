/* saxpy_256k: input-size variant of corpus kernel saxpy (n = 2^18); same code, other default args and trip counts. */
/* saxpy, CUDA: one thread per element, coalesced loads and stores. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

__global__ void saxpy(long n, float a, const float *x, const float *y, float *out) {
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 18);
    size_t bytes = n * sizeof(float);
    float *x = (float *)xapp_alloc(bytes), *y = (float *)xapp_alloc(bytes), *out = (float *)xapp_alloc(bytes);
    xapp_seed(1);
    xapp_fill_float(x, n, -1.0f, 1.0f);
    xapp_fill_float(y, n, -1.0f, 1.0f);
    float *dx, *dy, *dout;
    XAPP_CUDA(cudaMalloc(&dx, bytes)); XAPP_CUDA(cudaMalloc(&dy, bytes)); XAPP_CUDA(cudaMalloc(&dout, bytes));
    XAPP_CUDA(cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice));
    int threads = 256;
    long blocks = (n + threads - 1) / threads;
    XAPP_TIME_KERNEL(best, saxpy<<<blocks, threads>>>(n, 2.5f, dx, dy, dout));
    XAPP_CUDA(cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(out, n));
    cudaFree(dx); cudaFree(dy); cudaFree(dout); free(x); free(y); free(out);
    return 0;
}
