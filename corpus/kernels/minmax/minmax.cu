/* minmax, CUDA: grid-stride fminf/fmaxf over coalesced loads, warp-shuffle and shared-memory
 * reduction to one (min, max) pair per block, then a one-block launch over the pairs. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define THREADS 256
#define MAX_BLOCKS 1024

/* Min of lo and max of hi over the block, valid in thread 0. */
__device__ void block_minmax(float &lo, float &hi) {
    __shared__ float warp_lo[THREADS / 32], warp_hi[THREADS / 32];
    for (int off = 16; off > 0; off >>= 1) {
        lo = fminf(lo, __shfl_down_sync(0xffffffffu, lo, off));
        hi = fmaxf(hi, __shfl_down_sync(0xffffffffu, hi, off));
    }
    if (threadIdx.x % 32 == 0) { warp_lo[threadIdx.x / 32] = lo; warp_hi[threadIdx.x / 32] = hi; }
    __syncthreads();
    lo = threadIdx.x < THREADS / 32 ? warp_lo[threadIdx.x] : INFINITY;
    hi = threadIdx.x < THREADS / 32 ? warp_hi[threadIdx.x] : -INFINITY;
    if (threadIdx.x < 32)
        for (int off = 16; off > 0; off >>= 1) {
            lo = fminf(lo, __shfl_down_sync(0xffffffffu, lo, off));
            hi = fmaxf(hi, __shfl_down_sync(0xffffffffu, hi, off));
        }
}

__global__ void partial_minmax(long n, const float *__restrict__ x, float *__restrict__ partials) {
    float lo = INFINITY, hi = -INFINITY;
    for (long i = (long)blockIdx.x * THREADS + threadIdx.x; i < n; i += (long)gridDim.x * THREADS) {
        float v = x[i];
        lo = fminf(lo, v);
        hi = fmaxf(hi, v);
    }
    block_minmax(lo, hi);
    if (threadIdx.x == 0) { partials[2 * blockIdx.x] = lo; partials[2 * blockIdx.x + 1] = hi; }
}

__global__ void final_minmax(int m, const float *__restrict__ partials, float *__restrict__ out) {
    float lo = INFINITY, hi = -INFINITY;
    for (int i = threadIdx.x; i < m; i += THREADS) {
        lo = fminf(lo, partials[2 * i]);
        hi = fmaxf(hi, partials[2 * i + 1]);
    }
    block_minmax(lo, hi);
    if (threadIdx.x == 0) { out[0] = lo; out[1] = hi; }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 25);
    size_t bytes = n * sizeof(float);
    float *x = (float *)xapp_alloc(bytes);
    float out[2];
    xapp_seed(12);
    xapp_fill_float(x, n, -1000.0f, 1000.0f);
    float *dx, *dpartials, *dout;
    XAPP_CUDA(cudaMalloc(&dx, bytes));
    XAPP_CUDA(cudaMalloc(&dpartials, 2 * MAX_BLOCKS * sizeof(float))); XAPP_CUDA(cudaMalloc(&dout, 2 * sizeof(float)));
    XAPP_CUDA(cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice));
    /* enough blocks to fill the GPU, none without data */
    long wanted = (n + THREADS - 1) / THREADS;
    int blocks = (int)(wanted < MAX_BLOCKS ? wanted : MAX_BLOCKS);
    XAPP_TIME_KERNEL(best, partial_minmax<<<blocks, THREADS>>>(n, dx, dpartials);
                           final_minmax<<<1, THREADS>>>(blocks, dpartials, dout));
    XAPP_CUDA(cudaMemcpy(out, dout, 2 * sizeof(float), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(out, 2));
    cudaFree(dx); cudaFree(dpartials); cudaFree(dout); free(x);
    return 0;
}
