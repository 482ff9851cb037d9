/* conv2d_5x5, CUDA: a 32x8 block computes a 32x8 tile of outputs from a 36x12 input tile staged
 * in shared memory (coalesced row loads, each input pixel fetched from global memory about
 * 1.5 times instead of 25); the 25 taps live in constant memory (every thread reads the same tap
 * at the same time: a broadcast). Taps are added in the C side's order. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define TX 32
#define TY 8
#define R 4   /* filter size - 1 */

__constant__ float taps[25];

__global__ void conv2d_5x5(long height, long width, const float *__restrict__ in, float *__restrict__ out) {
    __shared__ float tile[TY + R][TX + R + 1];   /* +1: fewer bank conflicts between rows */
    long oh = height - R, ow = width - R;
    long y0 = (long)blockIdx.y * TY, x0 = (long)blockIdx.x * TX;
    int tid = threadIdx.y * TX + threadIdx.x;
    for (int l = tid; l < (TY + R) * (TX + R); l += TX * TY) {
        int r = l / (TX + R), c = l % (TX + R);
        long gy = y0 + r, gx = x0 + c;
        tile[r][c] = gy < height && gx < width ? in[gy * width + gx] : 0.0f;
    }
    __syncthreads();
    long y = y0 + threadIdx.y, x = x0 + threadIdx.x;
    if (y < oh && x < ow) {
        float acc = 0.0f;
        for (int dy = 0; dy < 5; dy++)
            for (int dx = 0; dx < 5; dx++) acc += taps[dy * 5 + dx] * tile[threadIdx.y + dy][threadIdx.x + dx];
        out[y * ow + x] = acc;
    }
}

int main(int argc, char **argv) {
    long height = xapp_arg(argc, argv, 1, 8192), width = xapp_arg(argc, argv, 2, 8192);
    if (height < 5 || width < 5) { fprintf(stderr, "conv2d_5x5: the image must be at least 5x5\n"); return 2; }
    long oh = height - R, ow = width - R;
    size_t in_bytes = height * width * sizeof(float), out_bytes = oh * ow * sizeof(float);
    float *in = (float *)xapp_alloc(in_bytes), *out = (float *)xapp_alloc(out_bytes);
    float f[25];
    xapp_seed(504);
    xapp_fill_float(f, 25, -1.0f, 1.0f);
    xapp_fill_float(in, height * width, 0.0f, 1.0f);
    float *din, *dout;
    XAPP_CUDA(cudaMalloc(&din, in_bytes)); XAPP_CUDA(cudaMalloc(&dout, out_bytes));
    XAPP_CUDA(cudaMemcpy(din, in, in_bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpyToSymbol(taps, f, sizeof(f)));
    dim3 threads(TX, TY);
    dim3 blocks((unsigned)((ow + TX - 1) / TX), (unsigned)((oh + TY - 1) / TY));
    XAPP_TIME_KERNEL(best, conv2d_5x5<<<blocks, threads>>>(height, width, din, dout));
    XAPP_CUDA(cudaMemcpy(out, dout, out_bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(out, oh * ow));
    cudaFree(din); cudaFree(dout); free(in); free(out);
    return 0;
}
