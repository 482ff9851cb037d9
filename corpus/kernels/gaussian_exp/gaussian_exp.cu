/* gaussian_exp, CUDA: one thread per query point; the centres are staged through shared memory in
 * tiles of BLOCK (broadcast reads), accurate expf as on the CPU. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define SIGMA 0.1f
#define BLOCK 256

__global__ void __launch_bounds__(BLOCK) gaussian_exp(long nq, int nc, const float *__restrict__ qx,
                                                      const float *__restrict__ qy, const float *__restrict__ c,
                                                      float *__restrict__ out) {
    __shared__ float tile[3 * BLOCK];
    const float scale = -1.0f / (2.0f * SIGMA * SIGMA);
    long i = (long)blockIdx.x * BLOCK + threadIdx.x;
    float x = i < nq ? qx[i] : 0.0f, y = i < nq ? qy[i] : 0.0f, sum = 0.0f;
    for (int base = 0; base < nc; base += BLOCK) {
        int count = nc - base < BLOCK ? nc - base : BLOCK;
        /* coalesced copy of `count` centres (3 floats each) */
        for (int k = threadIdx.x; k < 3 * count; k += BLOCK) tile[k] = c[3 * base + k];
        __syncthreads();
        for (int j = 0; j < count; j++) {
            float dx = x - tile[3 * j], dy = y - tile[3 * j + 1];
            sum += tile[3 * j + 2] * expf((dx * dx + dy * dy) * scale);
        }
        __syncthreads();
    }
    if (i < nq) out[i] = sum;
}

int main(int argc, char **argv) {
    long nq = xapp_arg(argc, argv, 1, 1L << 16);
    int nc = (int)xapp_arg(argc, argv, 2, 512);
    float *qx = (float *)xapp_alloc((size_t)nq * sizeof(float)), *qy = (float *)xapp_alloc((size_t)nq * sizeof(float));
    float *c = (float *)xapp_alloc((size_t)3 * nc * sizeof(float)), *out = (float *)xapp_alloc((size_t)nq * sizeof(float));
    xapp_seed(24);
    xapp_fill_float(qx, nq, 0.0f, 1.0f);
    xapp_fill_float(qy, nq, 0.0f, 1.0f);
    xapp_fill_float(c, 3 * (size_t)nc, 0.0f, 1.0f);
    float *dqx, *dqy, *dc, *dout;
    XAPP_CUDA(cudaMalloc(&dqx, nq * sizeof(float))); XAPP_CUDA(cudaMalloc(&dqy, nq * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&dc, (size_t)3 * nc * sizeof(float))); XAPP_CUDA(cudaMalloc(&dout, nq * sizeof(float)));
    XAPP_CUDA(cudaMemcpy(dqx, qx, nq * sizeof(float), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dqy, qy, nq * sizeof(float), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dc, c, (size_t)3 * nc * sizeof(float), cudaMemcpyHostToDevice));
    long blocks = (nq + BLOCK - 1) / BLOCK;
    XAPP_TIME_KERNEL(best, gaussian_exp<<<blocks, BLOCK>>>(nq, nc, dqx, dqy, dc, dout));
    XAPP_CUDA(cudaMemcpy(out, dout, nq * sizeof(float), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(out, nq));
    cudaFree(dqx); cudaFree(dqy); cudaFree(dc); cudaFree(dout);
    free(qx); free(qy); free(c); free(out);
    return 0;
}
