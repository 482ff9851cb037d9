/* stencil3d7, CUDA: one launch per sweep; a 32x8 block of threads owns an (i, j) tile and walks k,
 * keeping the points below and above in registers and the current plane (with halo) in shared
 * memory, so each grid value is loaded from global memory about once per sweep. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define C0 0.4f
#define C1 0.1f
#define BX 32
#define BY 8

__global__ void sweep(long n, const float *__restrict__ src, float *__restrict__ dst) {
    __shared__ float plane[BY + 2][BX + 2];
    long i = (long)blockIdx.x * BX + threadIdx.x + 1;  /* interior points start at 1 */
    long j = (long)blockIdx.y * BY + threadIdx.y + 1;
    int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
    long nn = n * n;
    bool in_grid = i < n && j < n;
    float below = in_grid ? src[j * n + i] : 0.0f;
    float cur = in_grid ? src[nn + j * n + i] : 0.0f;
    for (long k = 1; k < n - 1; k++) {
        long c = k * nn + j * n + i;
        float above = in_grid ? src[c + nn] : 0.0f;
        __syncthreads();  /* everyone is done reading the previous plane */
        if (in_grid) plane[ty][tx] = cur;
        if (threadIdx.x == 0 && in_grid) plane[ty][0] = src[c - 1];
        if (threadIdx.x == BX - 1 && in_grid && i + 1 < n) plane[ty][BX + 1] = src[c + 1];
        if (threadIdx.y == 0 && in_grid) plane[0][tx] = src[c - n];
        if (threadIdx.y == BY - 1 && in_grid && j + 1 < n) plane[BY + 1][tx] = src[c + n];
        __syncthreads();
        if (i < n - 1 && j < n - 1)  /* same summation order as the C side */
            dst[c] = C0 * cur + C1 * (below + above + plane[ty - 1][tx] + plane[ty + 1][tx]
                                      + plane[ty][tx - 1] + plane[ty][tx + 1]);
        below = cur;
        cur = above;
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 256), sweeps = xapp_arg(argc, argv, 2, 8);
    size_t bytes = n * n * n * sizeof(float);
    float *in = (float *)xapp_alloc(bytes), *out = (float *)xapp_alloc(bytes);
    xapp_seed(5);
    xapp_fill_float(in, n * n * n, 0.0f, 1.0f);
    float *din, *da, *db;
    XAPP_CUDA(cudaMalloc(&din, bytes)); XAPP_CUDA(cudaMalloc(&da, bytes)); XAPP_CUDA(cudaMalloc(&db, bytes));
    XAPP_CUDA(cudaMemcpy(din, in, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(da, in, bytes, cudaMemcpyHostToDevice));  /* fixed boundary */
    XAPP_CUDA(cudaMemcpy(db, in, bytes, cudaMemcpyHostToDevice));
    dim3 threads(BX, BY);
    dim3 blocks((unsigned)((n - 2 + BX - 1) / BX), (unsigned)((n - 2 + BY - 1) / BY));
    const float *last = din;
    XAPP_TIME_KERNEL(best, {
        const float *src = din;
        float *dst = da;
        for (long t = 0; t < sweeps; t++) {
            sweep<<<blocks, threads>>>(n, src, dst);
            src = dst;
            dst = dst == da ? db : da;
        }
        last = src;
    });
    XAPP_CUDA(cudaMemcpy(out, last, bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(out, n * n * n));
    cudaFree(din); cudaFree(da); cudaFree(db); free(in); free(out);
    return 0;
}
