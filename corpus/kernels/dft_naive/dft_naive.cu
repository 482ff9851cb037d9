/* dft_naive, CUDA: one thread per frequency; the signal is staged through shared memory in tiles
 * (every thread of a block reads the same x[t]: a broadcast), sincosf for the twiddle. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define BLOCK 128

__global__ void __launch_bounds__(BLOCK) dft_naive(int n, float w, const float *__restrict__ x, float *__restrict__ power) {
    __shared__ float tile[BLOCK];
    int k = blockIdx.x * BLOCK + threadIdx.x;
    int step = k < n ? k : 0;   /* padding threads of the last block: keep idx in range */
    float re = 0.0f, im = 0.0f;
    int idx = 0;   /* k * t mod n */
    for (int base = 0; base < n; base += BLOCK) {
        int j = base + (int)threadIdx.x;
        if (j < n) tile[threadIdx.x] = x[j];
        __syncthreads();
        int count = n - base < BLOCK ? n - base : BLOCK;
        for (int t = 0; t < count; t++) {
            float s, c;
            sincosf(w * (float)idx, &s, &c);
            re += tile[t] * c;
            im -= tile[t] * s;
            idx += step;
            if (idx >= n) idx -= n;
        }
        __syncthreads();
    }
    if (k < n) power[k] = re * re + im * im;
}

int main(int argc, char **argv) {
    int n = (int)xapp_arg(argc, argv, 1, 6144);
    float *x = (float *)xapp_alloc((size_t)n * sizeof(float)), *power = (float *)xapp_alloc((size_t)n * sizeof(float));
    xapp_seed(22);
    xapp_fill_float(x, n, -1.0f, 1.0f);
    float *dx, *dpower;
    XAPP_CUDA(cudaMalloc(&dx, n * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&dpower, n * sizeof(float)));
    XAPP_CUDA(cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice));
    float w = 6.283185307179586f / (float)n;
    int blocks = (n + BLOCK - 1) / BLOCK;
    XAPP_TIME_KERNEL(best, dft_naive<<<blocks, BLOCK>>>(n, w, dx, dpower));
    XAPP_CUDA(cudaMemcpy(power, dpower, n * sizeof(float), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(power, n));
    cudaFree(dx); cudaFree(dpower); free(x); free(power);
    return 0;
}
