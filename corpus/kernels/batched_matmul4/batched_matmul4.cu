/* batched_matmul4, CUDA: 16 threads per 4x4 product, 16 products per 256-thread block; the block
 * copies its 16 A and 16 B matrices (1 KiB each, contiguous) into shared memory with coalesced
 * loads, each thread computes one entry, and the block writes its 16 results contiguously. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define THREADS 256

__global__ void batched_matmul4(long batch, const float *__restrict__ a, const float *__restrict__ b,
                                float *__restrict__ c) {
    __shared__ float as[THREADS], bs[THREADS];
    long base = (long)blockIdx.x * THREADS;  /* first float of this block's matrices */
    long t = base + threadIdx.x;
    bool valid = t < batch * 16;
    as[threadIdx.x] = valid ? a[t] : 0.0f;
    bs[threadIdx.x] = valid ? b[t] : 0.0f;
    __syncthreads();
    int m = threadIdx.x / 16, r = (threadIdx.x % 16) / 4, col = threadIdx.x % 4;
    const float *am = as + m * 16, *bm = bs + m * 16;
    float sum = 0.0f;
    for (int k = 0; k < 4; k++) sum += am[r * 4 + k] * bm[k * 4 + col];
    if (valid) c[t] = sum;
}

int main(int argc, char **argv) {
    long batch = xapp_arg(argc, argv, 1, 3L << 20);
    size_t bytes = batch * 16 * sizeof(float);
    float *a = (float *)xapp_alloc(bytes), *b = (float *)xapp_alloc(bytes), *c = (float *)xapp_alloc(bytes);
    xapp_seed(20);
    xapp_fill_float(a, batch * 16, 0.0f, 1.0f);
    xapp_fill_float(b, batch * 16, 0.0f, 1.0f);
    float *da, *db, *dc;
    XAPP_CUDA(cudaMalloc(&da, bytes)); XAPP_CUDA(cudaMalloc(&db, bytes)); XAPP_CUDA(cudaMalloc(&dc, bytes));
    XAPP_CUDA(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
    long blocks = (batch * 16 + THREADS - 1) / THREADS;
    XAPP_TIME_KERNEL(best, batched_matmul4<<<blocks, THREADS>>>(batch, da, db, dc));
    XAPP_CUDA(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(c, batch * 16));
    cudaFree(da); cudaFree(db); cudaFree(dc); free(a); free(b); free(c);
    return 0;
}
