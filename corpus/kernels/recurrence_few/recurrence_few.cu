/* recurrence_few, CUDA: one thread per filter in a single block (all the parallelism there is);
 * the interleaved layout makes each time step one coalesced load and store for the block.
 * Latency-bound by design: one dependent multiply-add per global load. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

__global__ void recurrence_few(int nrec, long len, const float *__restrict__ coef, const float *__restrict__ u,
                               float *__restrict__ y) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nrec) return;
    float a = coef[2 * r], b = coef[2 * r + 1], x = 0.0f;
    for (long t = 0; t < len; t++) {
        x = a * x + b * u[t * nrec + r];
        y[t * nrec + r] = x;
    }
}

int main(int argc, char **argv) {
    long len = xapp_arg(argc, argv, 1, 1L << 22);
    int nrec = (int)xapp_arg(argc, argv, 2, 8);
    float *coef = (float *)xapp_alloc((size_t)2 * nrec * sizeof(float));
    size_t bytes = (size_t)len * nrec * sizeof(float);
    float *u = (float *)xapp_alloc(bytes), *y = (float *)xapp_alloc(bytes);
    xapp_seed(25);
    for (int r = 0; r < nrec; r++) {
        xapp_fill_float(&coef[2 * r], 1, 0.5f, 0.99f);
        xapp_fill_float(&coef[2 * r + 1], 1, 0.1f, 1.0f);
    }
    xapp_fill_float(u, (size_t)len * nrec, 0.0f, 1.0f);
    float *dcoef, *du, *dy;
    XAPP_CUDA(cudaMalloc(&dcoef, (size_t)2 * nrec * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&du, bytes)); XAPP_CUDA(cudaMalloc(&dy, bytes));
    XAPP_CUDA(cudaMemcpy(dcoef, coef, (size_t)2 * nrec * sizeof(float), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(du, u, bytes, cudaMemcpyHostToDevice));
    int threads = nrec < 256 ? nrec : 256;
    int blocks = (nrec + threads - 1) / threads;
    XAPP_TIME_KERNEL(best, recurrence_few<<<blocks, threads>>>(nrec, len, dcoef, du, dy));
    XAPP_CUDA(cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(y, (size_t)len * nrec));
    cudaFree(dcoef); cudaFree(du); cudaFree(dy); free(coef); free(u); free(y);
    return 0;
}
