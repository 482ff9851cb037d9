/* srad_diffusion, CUDA: one thread per pixel; 32x8 blocks stage their tile of the image plus a
 * one-pixel halo (replicated at the image border) in shared memory, then each thread computes its
 * pixel's differences and diffusion coefficient with the C side's expressions; all five outputs are
 * written coalesced. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define BX 32
#define BY 8

__global__ void diffusion(long rows, long cols, float q0sqr, const float *__restrict__ J, float *__restrict__ c,
                          float *__restrict__ dN, float *__restrict__ dS, float *__restrict__ dW,
                          float *__restrict__ dE) {
    __shared__ float tile[BY + 2][BX + 2];
    long j = (long)blockIdx.x * BX + threadIdx.x, i = (long)blockIdx.y * BY + threadIdx.y;
    int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
    bool in = i < rows && j < cols;
    if (in) {
        tile[ty][tx] = J[i * cols + j];
        if (threadIdx.y == 0) tile[0][tx] = J[(i > 0 ? i - 1 : 0) * cols + j];
        if (threadIdx.y == BY - 1 || i == rows - 1) tile[ty + 1][tx] = J[(i < rows - 1 ? i + 1 : rows - 1) * cols + j];
        if (threadIdx.x == 0) tile[ty][0] = J[i * cols + (j > 0 ? j - 1 : 0)];
        if (threadIdx.x == BX - 1 || j == cols - 1) tile[ty][tx + 1] = J[i * cols + (j < cols - 1 ? j + 1 : cols - 1)];
    }
    __syncthreads();
    if (!in) return;
    float jij = tile[ty][tx];
    float n = tile[ty - 1][tx] - jij, s = tile[ty + 1][tx] - jij;
    float we = tile[ty][tx - 1] - jij, ea = tile[ty][tx + 1] - jij;
    float g2 = (n * n + s * s + we * we + ea * ea) / (jij * jij);
    float l = (n + s + we + ea) / jij;
    float num = 0.5f * g2 - (1.0f / 16.0f) * (l * l);
    float den = 1.0f + 0.25f * l;
    float qsqr = num / (den * den);
    float cij = 1.0f / (1.0f + (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr)));
    long o = i * cols + j;
    c[o] = cij < 0.0f ? 0.0f : (cij > 1.0f ? 1.0f : cij);
    dN[o] = n;
    dS[o] = s;
    dW[o] = we;
    dE[o] = ea;
}

/* q0^2 = var / mean^2 of the image (in double, the same code on both sides). */
static float speckle_scale(const float *J, size_t cnt) {
    double sum = 0.0, sum2 = 0.0;
    for (size_t k = 0; k < cnt; k++) {
        sum += J[k];
        sum2 += (double)J[k] * J[k];
    }
    double mean = sum / cnt, var = sum2 / cnt - mean * mean;
    return (float)(var / (mean * mean));
}

int main(int argc, char **argv) {
    long rows = xapp_arg(argc, argv, 1, 4096), cols = xapp_arg(argc, argv, 2, 4096);
    if (cols < 2) { fprintf(stderr, "srad_diffusion: needs at least 2 columns\n"); return 2; }
    size_t cnt = (size_t)rows * cols, bytes = cnt * sizeof(float);
    float *J = (float *)xapp_alloc(bytes), *c = (float *)xapp_alloc(bytes);
    float *dN = (float *)xapp_alloc(bytes), *dS = (float *)xapp_alloc(bytes);
    float *dW = (float *)xapp_alloc(bytes), *dE = (float *)xapp_alloc(bytes);
    xapp_seed(403);
    xapp_fill_float(J, cnt, 1.0f, 2.7f);
    float q0sqr = speckle_scale(J, cnt);
    float *dJ, *dc, *ddN, *ddS, *ddW, *ddE;
    XAPP_CUDA(cudaMalloc(&dJ, bytes)); XAPP_CUDA(cudaMalloc(&dc, bytes)); XAPP_CUDA(cudaMalloc(&ddN, bytes));
    XAPP_CUDA(cudaMalloc(&ddS, bytes)); XAPP_CUDA(cudaMalloc(&ddW, bytes)); XAPP_CUDA(cudaMalloc(&ddE, bytes));
    XAPP_CUDA(cudaMemcpy(dJ, J, bytes, cudaMemcpyHostToDevice));
    dim3 threads(BX, BY);
    dim3 blocks((unsigned)((cols + BX - 1) / BX), (unsigned)((rows + BY - 1) / BY));
    XAPP_TIME_KERNEL(best, diffusion<<<blocks, threads>>>(rows, cols, q0sqr, dJ, dc, ddN, ddS, ddW, ddE));
    XAPP_CUDA(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));
    XAPP_CUDA(cudaMemcpy(dN, ddN, bytes, cudaMemcpyDeviceToHost));
    XAPP_CUDA(cudaMemcpy(dS, ddS, bytes, cudaMemcpyDeviceToHost));
    XAPP_CUDA(cudaMemcpy(dW, ddW, bytes, cudaMemcpyDeviceToHost));
    XAPP_CUDA(cudaMemcpy(dE, ddE, bytes, cudaMemcpyDeviceToHost));
    double checksum = xapp_checksum_float(c, cnt) + xapp_checksum_float(dN, cnt) + 2.0 * xapp_checksum_float(dS, cnt)
                      + 3.0 * xapp_checksum_float(dW, cnt) + 4.0 * xapp_checksum_float(dE, cnt);
    xapp_report(best, checksum);
    cudaFree(dJ); cudaFree(dc); cudaFree(ddN); cudaFree(ddS); cudaFree(ddW); cudaFree(ddE);
    free(J); free(c); free(dN); free(dS); free(dW); free(dE);
    return 0;
}
