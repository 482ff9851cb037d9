/* matmul_128: input-size variant of corpus kernel matmul (n = 128); same code, other default args and trip counts. */
/* matmul, CUDA: classic shared-memory tiling; a 16x16 block computes a 16x16 tile of C, staging
 * 16x16 tiles of A and B with coalesced loads, and adds the products in the same k order as the
 * C side (out-of-range tile entries are zero). */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define TILE 16

__global__ void matmul(long n, const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c) {
    __shared__ float as[TILE][TILE], bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    long row = (long)blockIdx.y * TILE + ty, col = (long)blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (long t = 0; t < n; t += TILE) {
        as[ty][tx] = (row < n && t + tx < n) ? a[row * n + t + tx] : 0.0f;
        bs[ty][tx] = (t + ty < n && col < n) ? b[(t + ty) * n + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; k++) sum += as[ty][k] * bs[k][tx];
        __syncthreads();
    }
    if (row < n && col < n) c[row * n + col] = sum;
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 128);
    size_t bytes = n * n * sizeof(float);
    float *a = (float *)xapp_alloc(bytes), *b = (float *)xapp_alloc(bytes), *c = (float *)xapp_alloc(bytes);
    xapp_seed(17);
    xapp_fill_float(a, n * n, -1.0f, 1.0f);
    xapp_fill_float(b, n * n, -1.0f, 1.0f);
    float *da, *db, *dc;
    XAPP_CUDA(cudaMalloc(&da, bytes)); XAPP_CUDA(cudaMalloc(&db, bytes)); XAPP_CUDA(cudaMalloc(&dc, bytes));
    XAPP_CUDA(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
    dim3 threads(TILE, TILE);
    dim3 blocks((unsigned)((n + TILE - 1) / TILE), (unsigned)((n + TILE - 1) / TILE));
    XAPP_TIME_KERNEL(best, matmul<<<blocks, threads>>>(n, da, db, dc));
    XAPP_CUDA(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(c, n * n));
    cudaFree(da); cudaFree(db); cudaFree(dc); free(a); free(b); free(c);
    return 0;
}
