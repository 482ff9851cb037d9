/* small_matmul, CUDA: one launch per product (the chain is serial); each product is a classic
 * shared-memory tiled matrix multiply with 16x16 tiles and one thread per output element; the k
 * order is the same as on the CPU. With n = 64 a launch has only 16 blocks. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define T 16

/* Row-stochastic random matrix (shared by copy with the .c side). */
static void make_stochastic(int n, float *m) {
    xapp_fill_float(m, (size_t)n * n, 0.0f, 1.0f);
    for (int i = 0; i < n; i++) {
        float s = 0.0f;
        for (int j = 0; j < n; j++) s += m[i * n + j];
        for (int j = 0; j < n; j++) m[i * n + j] /= s;
    }
}

__global__ void __launch_bounds__(T * T) matmul_tiled(int n, const float *__restrict__ src,
                                                      const float *__restrict__ a, float *__restrict__ dst) {
    __shared__ float ps[T][T], as[T][T + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    int i = blockIdx.y * T + ty, j = blockIdx.x * T + tx;
    float sum = 0.0f;
    for (int k0 = 0; k0 < n; k0 += T) {
        ps[ty][tx] = (i < n && k0 + tx < n) ? src[i * n + k0 + tx] : 0.0f;
        as[ty][tx] = (k0 + ty < n && j < n) ? a[(k0 + ty) * n + j] : 0.0f;
        __syncthreads();
        int kmax = n - k0 < T ? n - k0 : T;   /* exact k range: no added zero terms */
        for (int k = 0; k < kmax; k++) sum += ps[ty][k] * as[k][tx];
        __syncthreads();
    }
    if (i < n && j < n) dst[i * n + j] = sum;
}

static void run(int n, int steps, const float *a, const float *p0, float *buf0, float *buf1) {
    dim3 threads(T, T), blocks((n + T - 1) / T, (n + T - 1) / T);
    const float *src = p0;
    for (int s = 0; s < steps; s++) {
        float *dst = (s & 1) ? buf1 : buf0;
        matmul_tiled<<<blocks, threads>>>(n, src, a, dst);
        src = dst;
    }
}

int main(int argc, char **argv) {
    int n = (int)xapp_arg(argc, argv, 1, 64);
    int steps = (int)xapp_arg(argc, argv, 2, 1000);
    size_t bytes = (size_t)n * n * sizeof(float);
    float *a = (float *)xapp_alloc(bytes), *p0 = (float *)xapp_alloc(bytes), *result = (float *)xapp_alloc(bytes);
    xapp_seed(30);
    make_stochastic(n, a);
    make_stochastic(n, p0);
    float *da, *dp0, *dbuf0, *dbuf1;
    XAPP_CUDA(cudaMalloc(&da, bytes)); XAPP_CUDA(cudaMalloc(&dp0, bytes));
    XAPP_CUDA(cudaMalloc(&dbuf0, bytes)); XAPP_CUDA(cudaMalloc(&dbuf1, bytes));
    XAPP_CUDA(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dp0, p0, bytes, cudaMemcpyHostToDevice));
    XAPP_TIME_KERNEL(best, run(n, steps, da, dp0, dbuf0, dbuf1));
    XAPP_CUDA(cudaMemcpy(result, ((steps - 1) & 1) ? dbuf1 : dbuf0, bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(result, (size_t)n * n));
    cudaFree(da); cudaFree(dp0); cudaFree(dbuf0); cudaFree(dbuf1); free(a); free(p0); free(result);
    return 0;
}
