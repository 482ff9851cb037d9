/* julia_set, CUDA: one thread per pixel in 32x8 blocks (a warp is 32 neighbouring pixels of a
 * row, which leave the loop at very different iterations: divergence). Every double operation is
 * rounded on its own (__dmul_rn, __dadd_rn, __dsub_rn: no FMA contraction), as on the C side. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define TX 32
#define TY 8
#define CR (-0.8)
#define CI 0.156

__global__ void julia_set(int w, int h, int maxit, double dx, double dy, int *__restrict__ out) {
    int px = blockIdx.x * TX + threadIdx.x, py = blockIdx.y * TY + threadIdx.y;
    if (px >= w || py >= h) return;
    double zr = __dadd_rn(-1.6, __dmul_rn((double)px, dx)), zi = __dadd_rn(-0.9, __dmul_rn((double)py, dy));
    int it = 0;
    while (it < maxit) {
        double zr2 = __dmul_rn(zr, zr), zi2 = __dmul_rn(zi, zi);
        if (__dadd_rn(zr2, zi2) > 4.0) break;
        zi = __dadd_rn(__dmul_rn(__dmul_rn(2.0, zr), zi), CI);
        zr = __dadd_rn(__dsub_rn(zr2, zi2), CR);
        it++;
    }
    out[(long)py * w + px] = it;
}

int main(int argc, char **argv) {
    int w = (int)xapp_arg(argc, argv, 1, 1024), h = (int)xapp_arg(argc, argv, 2, 768);
    int maxit = (int)xapp_arg(argc, argv, 3, 1000);
    size_t bytes = (size_t)w * h * sizeof(int);
    int *out = (int *)xapp_alloc(bytes);
    double dx = 3.2 / w, dy = 1.8 / h;
    int *dout;
    XAPP_CUDA(cudaMalloc(&dout, bytes));
    dim3 threads(TX, TY);
    dim3 blocks((unsigned)((w + TX - 1) / TX), (unsigned)((h + TY - 1) / TY));
    XAPP_TIME_KERNEL(best, julia_set<<<blocks, threads>>>(w, h, maxit, dx, dy, dout));
    XAPP_CUDA(cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_int(out, (size_t)w * h));
    cudaFree(dout); free(out);
    return 0;
}
