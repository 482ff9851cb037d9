/* mandelbrot, CUDA: one thread per pixel, 32x8 blocks (a warp spans a row segment: coalesced
 * stores, neighbouring pixels, so less divergence). The _rn intrinsics stop FMA contraction so
 * that every float operation rounds as on the CPU and the iteration counts match exactly. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

__global__ void mandelbrot(int w, int h, int maxit, float dx, float dy, int *__restrict__ out) {
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= w || py >= h) return;
    float cr = __fadd_rn(-2.25f, __fmul_rn((float)px, dx));
    float ci = __fadd_rn(-1.5f, __fmul_rn((float)py, dy));
    float zr = 0.0f, zi = 0.0f;
    int it = 0;
    while (it < maxit) {
        float zr2 = __fmul_rn(zr, zr), zi2 = __fmul_rn(zi, zi);
        if (__fadd_rn(zr2, zi2) > 4.0f) break;
        zi = __fadd_rn(__fmul_rn(__fmul_rn(2.0f, zr), zi), ci);
        zr = __fadd_rn(__fsub_rn(zr2, zi2), cr);
        it++;
    }
    out[(long)py * w + px] = it;
}

int main(int argc, char **argv) {
    int w = (int)xapp_arg(argc, argv, 1, 1536);
    int h = (int)xapp_arg(argc, argv, 2, 1536);
    int maxit = (int)xapp_arg(argc, argv, 3, 256);
    size_t bytes = (size_t)w * h * sizeof(int);
    int *out = (int *)xapp_alloc(bytes);
    float dx = 3.0f / (float)w, dy = 3.0f / (float)h;
    int *dout;
    XAPP_CUDA(cudaMalloc(&dout, bytes));
    dim3 threads(32, 8);
    dim3 blocks((w + 31) / 32, (h + 7) / 8);
    XAPP_TIME_KERNEL(best, mandelbrot<<<blocks, threads>>>(w, h, maxit, dx, dy, dout));
    XAPP_CUDA(cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_int(out, (size_t)w * h));
    cudaFree(dout); free(out);
    return 0;
}
