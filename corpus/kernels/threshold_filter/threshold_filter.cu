/* threshold_filter, CUDA: one thread per pixel, coalesced; warps that straddle a ramp crossing
 * (or meet noise near the threshold) run both paths. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define NEWTON_STEPS 8

/* Deterministic input (shared by copy with the .c side): a triangle wave of period 4096 plus
 * noise, in [0, 1); arithmetic only, so both sides build identical data. */
static void make_signal(long n, float *x) {
    xapp_fill_float(x, n, 0.0f, 0.4f);
    for (long i = 0; i < n; i++) {
        float t = (float)(i % 4096) * (1.0f / 4096.0f);
        x[i] += 0.6f * fabsf(2.0f * t - 1.0f) * 0.999f;
    }
}

__global__ void threshold_filter(long n, float thr, const float *__restrict__ x, float *__restrict__ out) {
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    if (v > thr) {
        float y = v;
        for (int k = 0; k < NEWTON_STEPS; k++) y = (2.0f * y + v / (y * y)) * (1.0f / 3.0f);
        out[i] = y;
    } else {
        out[i] = 0.5f * v;
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 25);
    float *x = (float *)xapp_alloc((size_t)n * sizeof(float)), *out = (float *)xapp_alloc((size_t)n * sizeof(float));
    xapp_seed(18);
    make_signal(n, x);
    float *dx, *dout;
    XAPP_CUDA(cudaMalloc(&dx, n * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&dout, n * sizeof(float)));
    XAPP_CUDA(cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice));
    int threads = 256;
    long blocks = (n + threads - 1) / threads;
    XAPP_TIME_KERNEL(best, threshold_filter<<<blocks, threads>>>(n, 0.6f, dx, dout));
    XAPP_CUDA(cudaMemcpy(out, dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(out, n));
    cudaFree(dx); cudaFree(dout); free(x); free(out);
    return 0;
}
