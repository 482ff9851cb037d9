/* conv1d_wide, CUDA: one thread per output; a 256-thread block stages its 256 + 62 input window
 * in shared memory with coalesced loads (each input fetched from global memory ~1.25 times
 * instead of 63), the taps sit in constant memory (a broadcast: all threads read tap k
 * together). Taps are added in ascending order, as on the C side. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define TAPS 63
#define THREADS 256

__constant__ float taps[TAPS];

__global__ void conv1d_wide(long n, const float *__restrict__ x, float *__restrict__ out) {
    __shared__ float window[THREADS + TAPS - 1];
    long m = n - TAPS + 1;
    long base = (long)blockIdx.x * THREADS;
    for (int l = threadIdx.x; l < THREADS + TAPS - 1; l += THREADS)
        window[l] = base + l < n ? x[base + l] : 0.0f;
    __syncthreads();
    long i = base + threadIdx.x;
    if (i < m) {
        float acc = 0.0f;
        for (int k = 0; k < TAPS; k++) acc += taps[k] * window[threadIdx.x + k];
        out[i] = acc;
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 25);
    if (n < TAPS) { fprintf(stderr, "conv1d_wide: need at least %d samples\n", TAPS); return 2; }
    long m = n - TAPS + 1;
    float *x = (float *)xapp_alloc(n * sizeof(float)), *out = (float *)xapp_alloc(m * sizeof(float));
    float f[TAPS];
    xapp_seed(505);
    xapp_fill_float(f, TAPS, -1.0f, 1.0f);
    xapp_fill_float(x, n, -1.0f, 1.0f);
    float *dx, *dout;
    XAPP_CUDA(cudaMalloc(&dx, n * sizeof(float))); XAPP_CUDA(cudaMalloc(&dout, m * sizeof(float)));
    XAPP_CUDA(cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpyToSymbol(taps, f, sizeof(f)));
    long blocks = (m + THREADS - 1) / THREADS;
    XAPP_TIME_KERNEL(best, conv1d_wide<<<blocks, THREADS>>>(n, dx, dout));
    XAPP_CUDA(cudaMemcpy(out, dout, m * sizeof(float), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(out, m));
    cudaFree(dx); cudaFree(dout); free(x); free(out);
    return 0;
}
