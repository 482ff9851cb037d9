/* sobel_512: input-size variant of corpus kernel sobel (512 x 512); same code, other default args and trip counts. */
/* sobel, CUDA: one thread per interior pixel on 32x8 blocks; the eight neighbour loads go through
 * the read-only data cache (__ldg), where adjacent threads and rows share them. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

__global__ void sobel(long height, long width, const float *__restrict__ in, float *__restrict__ out) {
    long x = (long)blockIdx.x * blockDim.x + threadIdx.x + 1;  /* interior pixels start at 1 */
    long y = (long)blockIdx.y * blockDim.y + threadIdx.y + 1;
    if (x < width - 1 && y < height - 1) {
        const float *p = in + y * width + x;
        float gx = (__ldg(p - width + 1) + 2.0f * __ldg(p + 1) + __ldg(p + width + 1))
                 - (__ldg(p - width - 1) + 2.0f * __ldg(p - 1) + __ldg(p + width - 1));
        float gy = (__ldg(p + width - 1) + 2.0f * __ldg(p + width) + __ldg(p + width + 1))
                 - (__ldg(p - width - 1) + 2.0f * __ldg(p - width) + __ldg(p - width + 1));
        out[y * width + x] = sqrtf(gx * gx + gy * gy);
    }
}

int main(int argc, char **argv) {
    long height = xapp_arg(argc, argv, 1, 512), width = xapp_arg(argc, argv, 2, 512);
    long n = height * width;
    float *in = (float *)xapp_alloc(n * sizeof(float)), *out = (float *)xapp_alloc(n * sizeof(float));
    xapp_seed(8);
    xapp_fill_float(in, n, 0.0f, 1.0f);
    float *din, *dout;
    XAPP_CUDA(cudaMalloc(&din, n * sizeof(float))); XAPP_CUDA(cudaMalloc(&dout, n * sizeof(float)));
    XAPP_CUDA(cudaMemcpy(din, in, n * sizeof(float), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemset(dout, 0, n * sizeof(float)));  /* border pixels stay 0 */
    dim3 threads(32, 8);
    dim3 blocks((unsigned)((width - 2 + 31) / 32), (unsigned)((height - 2 + 7) / 8));
    XAPP_TIME_KERNEL(best, sobel<<<blocks, threads>>>(height, width, din, dout));
    XAPP_CUDA(cudaMemcpy(out, dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(out, n));
    cudaFree(din); cudaFree(dout); free(in); free(out);
    return 0;
}
