/* gemv_t, CUDA: a 32x16 block owns 32 adjacent columns; each of its 16 thread rows walks every
 * 16th matrix row (a warp reads 128 contiguous bytes per step, x[i] is one broadcast load), then
 * the 16 partial sums of a column are added from shared memory. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define BX 32
#define BY 16

__global__ void gemv_t(long rows, long cols, const float *__restrict__ a, const float *__restrict__ x,
                       float *__restrict__ y) {
    __shared__ float partial[BY][BX + 1];
    long j = (long)blockIdx.x * BX + threadIdx.x;
    float sum = 0.0f;
    if (j < cols)
        for (long i = threadIdx.y; i < rows; i += BY) sum += a[i * cols + j] * __ldg(x + i);
    partial[threadIdx.y][threadIdx.x] = sum;
    __syncthreads();
    if (threadIdx.y == 0 && j < cols) {
        float total = 0.0f;
        for (int r = 0; r < BY; r++) total += partial[r][threadIdx.x];
        y[j] = total;
    }
}

int main(int argc, char **argv) {
    long rows = xapp_arg(argc, argv, 1, 4096), cols = xapp_arg(argc, argv, 2, 4096);
    float *a = (float *)xapp_alloc(rows * cols * sizeof(float)), *x = (float *)xapp_alloc(rows * sizeof(float));
    float *y = (float *)xapp_alloc(cols * sizeof(float));
    xapp_seed(16);
    xapp_fill_float(a, rows * cols, 0.0f, 1.0f);
    xapp_fill_float(x, rows, 0.0f, 1.0f);
    float *da, *dx, *dy;
    XAPP_CUDA(cudaMalloc(&da, rows * cols * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&dx, rows * sizeof(float))); XAPP_CUDA(cudaMalloc(&dy, cols * sizeof(float)));
    XAPP_CUDA(cudaMemcpy(da, a, rows * cols * sizeof(float), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dx, x, rows * sizeof(float), cudaMemcpyHostToDevice));
    dim3 threads(BX, BY);
    unsigned blocks = (unsigned)((cols + BX - 1) / BX);
    XAPP_TIME_KERNEL(best, gemv_t<<<blocks, threads>>>(rows, cols, da, dx, dy));
    XAPP_CUDA(cudaMemcpy(y, dy, cols * sizeof(float), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(y, cols));
    cudaFree(da); cudaFree(dx); cudaFree(dy); free(a); free(x); free(y);
    return 0;
}
