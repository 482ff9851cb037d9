/* gemv, CUDA: one warp per row; lanes read the row in coalesced 128-byte steps, x comes through
 * the read-only cache (every warp reads all of it), and a warp shuffle adds the lanes' sums. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define THREADS 256

__global__ void gemv(long rows, long cols, const float *__restrict__ a, const float *__restrict__ x,
                     float *__restrict__ y) {
    long row = (long)blockIdx.x * (THREADS / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;  /* row is uniform within a warp */
    float sum = 0.0f;
    for (long j = lane; j < cols; j += 32) sum += a[row * cols + j] * __ldg(x + j);
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, off);
    if (lane == 0) y[row] = sum;
}

int main(int argc, char **argv) {
    long rows = xapp_arg(argc, argv, 1, 16384), cols = xapp_arg(argc, argv, 2, 4096);
    float *a = (float *)xapp_alloc(rows * cols * sizeof(float)), *x = (float *)xapp_alloc(cols * sizeof(float));
    float *y = (float *)xapp_alloc(rows * sizeof(float));
    xapp_seed(15);
    xapp_fill_float(a, rows * cols, 0.0f, 1.0f);
    xapp_fill_float(x, cols, 0.0f, 1.0f);
    float *da, *dx, *dy;
    XAPP_CUDA(cudaMalloc(&da, rows * cols * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&dx, cols * sizeof(float))); XAPP_CUDA(cudaMalloc(&dy, rows * sizeof(float)));
    XAPP_CUDA(cudaMemcpy(da, a, rows * cols * sizeof(float), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dx, x, cols * sizeof(float), cudaMemcpyHostToDevice));
    long blocks = (rows + THREADS / 32 - 1) / (THREADS / 32);
    XAPP_TIME_KERNEL(best, gemv<<<blocks, THREADS>>>(rows, cols, da, dx, dy));
    XAPP_CUDA(cudaMemcpy(y, dy, rows * sizeof(float), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(y, rows));
    cudaFree(da); cudaFree(dx); cudaFree(dy); free(a); free(x); free(y);
    return 0;
}
