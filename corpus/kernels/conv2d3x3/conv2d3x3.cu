/* conv2d3x3, CUDA: the filter in constant memory; each 32x8 block stages its tile plus a one-pixel
 * halo (corners included) in shared memory with coalesced loads, then every thread computes one
 * output pixel from shared memory. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define BX 32
#define BY 8
#define TW (BX + 2)
#define TH (BY + 2)

__constant__ float c_filter[9];

__global__ void conv2d3x3(long height, long width, const float *__restrict__ in, float *__restrict__ out) {
    __shared__ float tile[TH][TW];
    long y0 = (long)blockIdx.y * BY, x0 = (long)blockIdx.x * BX;  /* tile origin = top-left halo pixel */
    int tid = threadIdx.y * BX + threadIdx.x;
    for (int t = tid; t < TH * TW; t += BX * BY) {
        long gy = y0 + t / TW, gx = x0 + t % TW;
        tile[t / TW][t % TW] = (gy < height && gx < width) ? in[gy * width + gx] : 0.0f;
    }
    __syncthreads();
    long y = y0 + threadIdx.y + 1, x = x0 + threadIdx.x + 1;  /* interior pixels start at 1 */
    if (y < height - 1 && x < width - 1) {
        float acc = 0.0f;
        for (int dy = 0; dy < 3; dy++)
            for (int dx = 0; dx < 3; dx++)
                acc += c_filter[dy * 3 + dx] * tile[threadIdx.y + dy][threadIdx.x + dx];
        out[y * width + x] = acc;
    }
}

int main(int argc, char **argv) {
    long height = xapp_arg(argc, argv, 1, 8192), width = xapp_arg(argc, argv, 2, 8192);
    long n = height * width;
    float *in = (float *)xapp_alloc(n * sizeof(float)), *out = (float *)xapp_alloc(n * sizeof(float));
    float filter[9];
    xapp_seed(7);
    xapp_fill_float(filter, 9, -1.0f, 1.0f);
    xapp_fill_float(in, n, 0.0f, 1.0f);
    float *din, *dout;
    XAPP_CUDA(cudaMalloc(&din, n * sizeof(float))); XAPP_CUDA(cudaMalloc(&dout, n * sizeof(float)));
    XAPP_CUDA(cudaMemcpy(din, in, n * sizeof(float), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpyToSymbol(c_filter, filter, sizeof(filter)));
    XAPP_CUDA(cudaMemset(dout, 0, n * sizeof(float)));  /* border pixels stay 0 */
    dim3 threads(BX, BY);
    dim3 blocks((unsigned)((width - 2 + BX - 1) / BX), (unsigned)((height - 2 + BY - 1) / BY));
    XAPP_TIME_KERNEL(best, conv2d3x3<<<blocks, threads>>>(height, width, din, dout));
    XAPP_CUDA(cudaMemcpy(out, dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(out, n));
    cudaFree(din); cudaFree(dout); free(in); free(out);
    return 0;
}
