/* dot_product_64k: input-size variant of corpus kernel dot_product (n = 2^16); same code, other default args and trip counts. */
/* dot_product, CUDA: a grid-stride pass where each thread accumulates in double over coalesced
 * loads, a warp-shuffle and shared-memory reduction to one partial per block, then a second
 * one-block launch that reduces the partials (deterministic order). */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define THREADS 256
#define MAX_BLOCKS 1024

/* Sum of v over the block, valid in thread 0. */
__device__ double block_sum(double v) {
    __shared__ double warp_sums[THREADS / 32];
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    v = threadIdx.x < THREADS / 32 ? warp_sums[threadIdx.x] : 0.0;
    if (threadIdx.x < 32)
        for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

__global__ void partial_dots(long n, const float *__restrict__ x, const float *__restrict__ y,
                             double *__restrict__ partials) {
    double sum = 0.0;
    for (long i = (long)blockIdx.x * THREADS + threadIdx.x; i < n; i += (long)gridDim.x * THREADS)
        sum += (double)x[i] * (double)y[i];
    sum = block_sum(sum);
    if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

__global__ void final_sum(int m, const double *__restrict__ partials, double *__restrict__ out) {
    double sum = 0.0;
    for (int i = threadIdx.x; i < m; i += THREADS) sum += partials[i];
    sum = block_sum(sum);
    if (threadIdx.x == 0) out[0] = sum;
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 16);
    size_t bytes = n * sizeof(float);
    float *x = (float *)xapp_alloc(bytes), *y = (float *)xapp_alloc(bytes);
    xapp_seed(10);
    xapp_fill_float(x, n, -1.0f, 1.0f);
    xapp_fill_float(y, n, -1.0f, 1.0f);
    float *dx, *dy;
    double *dpartials, *dresult;
    XAPP_CUDA(cudaMalloc(&dx, bytes)); XAPP_CUDA(cudaMalloc(&dy, bytes));
    XAPP_CUDA(cudaMalloc(&dpartials, MAX_BLOCKS * sizeof(double))); XAPP_CUDA(cudaMalloc(&dresult, sizeof(double)));
    XAPP_CUDA(cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice));
    /* enough blocks to fill the GPU, none without data */
    long wanted = (n + THREADS - 1) / THREADS;
    int blocks = (int)(wanted < MAX_BLOCKS ? wanted : MAX_BLOCKS);
    XAPP_TIME_KERNEL(best, partial_dots<<<blocks, THREADS>>>(n, dx, dy, dpartials);
                           final_sum<<<1, THREADS>>>(blocks, dpartials, dresult));
    double result = 0.0;
    XAPP_CUDA(cudaMemcpy(&result, dresult, sizeof(double), cudaMemcpyDeviceToHost));
    xapp_report(best, result);
    cudaFree(dx); cudaFree(dy); cudaFree(dpartials); cudaFree(dresult); free(x); free(y);
    return 0;
}
