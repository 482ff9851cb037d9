/* row_sums, CUDA: one warp per row; the lanes read the row in coalesced 128-byte steps, then a
 * warp-shuffle reduction gives the row's sum. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define THREADS 256

__global__ void row_sums(long rows, long cols, const float *__restrict__ a, float *__restrict__ out) {
    long row = (long)blockIdx.x * (THREADS / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;  /* whole warps leave together: row is uniform within a warp */
    float sum = 0.0f;
    for (long j = lane; j < cols; j += 32) sum += a[row * cols + j];
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, off);
    if (lane == 0) out[row] = sum;
}

int main(int argc, char **argv) {
    long rows = xapp_arg(argc, argv, 1, 16384), cols = xapp_arg(argc, argv, 2, 4096);
    float *a = (float *)xapp_alloc(rows * cols * sizeof(float)), *out = (float *)xapp_alloc(rows * sizeof(float));
    xapp_seed(13);
    xapp_fill_float(a, rows * cols, 0.0f, 1.0f);
    float *da, *dout;
    XAPP_CUDA(cudaMalloc(&da, rows * cols * sizeof(float))); XAPP_CUDA(cudaMalloc(&dout, rows * sizeof(float)));
    XAPP_CUDA(cudaMemcpy(da, a, rows * cols * sizeof(float), cudaMemcpyHostToDevice));
    long blocks = (rows + THREADS / 32 - 1) / (THREADS / 32);
    XAPP_TIME_KERNEL(best, row_sums<<<blocks, THREADS>>>(rows, cols, da, dout));
    XAPP_CUDA(cudaMemcpy(out, dout, rows * sizeof(float), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(out, rows));
    cudaFree(da); cudaFree(dout); free(a); free(out);
    return 0;
}
