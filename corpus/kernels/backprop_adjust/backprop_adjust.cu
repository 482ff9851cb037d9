/* backprop_adjust, CUDA: one thread per weight (consecutive threads take consecutive weights of a row,
 * so every matrix is read and written coalesced); the few hidden-unit errors come from the cache. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define ETA 0.3f
#define MOMENTUM 0.3f

__global__ void adjust(long cnt, int n_hid, const float *__restrict__ delta, const float *__restrict__ ly,
                       const float *__restrict__ w, const float *__restrict__ oldw, float *__restrict__ w_out,
                       float *__restrict__ dw_out) {
    long k = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= cnt) return;
    long i = k / n_hid;
    int j = (int)(k - i * n_hid);
    float dw = ETA * delta[j] * ly[i] + MOMENTUM * oldw[k];
    w_out[k] = w[k] + dw;
    dw_out[k] = dw;
}

int main(int argc, char **argv) {
    long n_in = xapp_arg(argc, argv, 1, 2097152);
    int n_hid = (int)xapp_arg(argc, argv, 2, 16);
    size_t cnt = (size_t)n_in * n_hid, bytes = cnt * sizeof(float);
    float *delta = (float *)xapp_alloc(n_hid * sizeof(float)), *ly = (float *)xapp_alloc(n_in * sizeof(float));
    float *w = (float *)xapp_alloc(bytes), *oldw = (float *)xapp_alloc(bytes);
    float *w_out = (float *)xapp_alloc(bytes), *dw_out = (float *)xapp_alloc(bytes);
    xapp_seed(402);
    xapp_fill_float(delta, n_hid, -0.1f, 0.1f);
    xapp_fill_float(ly, n_in, 0.0f, 1.0f);
    xapp_fill_float(w, cnt, 0.0f, 1.0f);
    xapp_fill_float(oldw, cnt, -0.05f, 0.05f);
    float *ddelta, *dly, *dw, *doldw, *dw_out_d, *ddw_out;
    XAPP_CUDA(cudaMalloc(&ddelta, n_hid * sizeof(float))); XAPP_CUDA(cudaMalloc(&dly, n_in * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&dw, bytes)); XAPP_CUDA(cudaMalloc(&doldw, bytes));
    XAPP_CUDA(cudaMalloc(&dw_out_d, bytes)); XAPP_CUDA(cudaMalloc(&ddw_out, bytes));
    XAPP_CUDA(cudaMemcpy(ddelta, delta, n_hid * sizeof(float), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dly, ly, n_in * sizeof(float), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dw, w, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(doldw, oldw, bytes, cudaMemcpyHostToDevice));
    int threads = 256;
    long blocks = ((long)cnt + threads - 1) / threads;
    XAPP_TIME_KERNEL(best, adjust<<<blocks, threads>>>((long)cnt, n_hid, ddelta, dly, dw, doldw, dw_out_d, ddw_out));
    XAPP_CUDA(cudaMemcpy(w_out, dw_out_d, bytes, cudaMemcpyDeviceToHost));
    XAPP_CUDA(cudaMemcpy(dw_out, ddw_out, bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(w_out, cnt) + xapp_checksum_float(dw_out, cnt));
    cudaFree(ddelta); cudaFree(dly); cudaFree(dw); cudaFree(doldw); cudaFree(dw_out_d); cudaFree(ddw_out);
    free(delta); free(ly); free(w); free(oldw); free(w_out); free(dw_out);
    return 0;
}
