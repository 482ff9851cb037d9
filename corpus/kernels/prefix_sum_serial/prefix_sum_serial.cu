/* prefix_sum_serial, CUDA: one thread per row (all the parallelism the serial scan has), in one
 * block; each thread walks its row with 16-byte float4 loads and stores (when the row length is a
 * multiple of 4) and adds in the same order as the C side, so the sums are bit-identical.
 * Latency-bound by design: a chain of dependent additions per thread, a handful of threads. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

__global__ void prefix_sum_rows(int rows, long len, const float *__restrict__ x, float *__restrict__ out) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float *xr = x + (size_t)r * len;
    float *o = out + (size_t)r * len;
    float s = 0.0f;
    if (len % 4 == 0) {  /* rows start on 16-byte boundaries (cudaMalloc aligns the base) */
        const float4 *x4 = reinterpret_cast<const float4 *>(xr);
        float4 *o4 = reinterpret_cast<float4 *>(o);
        for (long q = 0; q < len / 4; q++) {
            float4 v = x4[q], w;
            s += v.x; w.x = s;
            s += v.y; w.y = s;
            s += v.z; w.z = s;
            s += v.w; w.w = s;
            o4[q] = w;
        }
    } else {
        for (long j = 0; j < len; j++) {
            s += xr[j];
            o[j] = s;
        }
    }
}

int main(int argc, char **argv) {
    int rows = (int)xapp_arg(argc, argv, 1, 16);
    long len = xapp_arg(argc, argv, 2, 1L << 22);
    size_t n = (size_t)rows * len, bytes = n * sizeof(float);
    float *x = (float *)xapp_alloc(bytes), *out = (float *)xapp_alloc(bytes);
    xapp_seed(601);
    xapp_fill_float(x, n, -1.0f, 1.0f);
    float *dx, *dout;
    XAPP_CUDA(cudaMalloc(&dx, bytes)); XAPP_CUDA(cudaMalloc(&dout, bytes));
    XAPP_CUDA(cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice));
    int threads = rows < 256 ? rows : 256;
    int blocks = (rows + threads - 1) / threads;
    XAPP_TIME_KERNEL(best, prefix_sum_rows<<<blocks, threads>>>(rows, len, dx, dout));
    XAPP_CUDA(cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(out, n));
    cudaFree(dx); cudaFree(dout); free(x); free(out);
    return 0;
}
