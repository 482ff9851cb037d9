/* srad_update, CUDA: one thread per pixel in 32x8 blocks; the block stages its tile of coefficients
 * plus the row below and the column to the right (replicated at the border) in shared memory, the
 * other five inputs are read once each, coalesced. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define BX 32
#define BY 8
#define LAMBDA 0.5f

__global__ void update(long rows, long cols, const float *__restrict__ J, const float *__restrict__ c,
                       const float *__restrict__ dN, const float *__restrict__ dS, const float *__restrict__ dW,
                       const float *__restrict__ dE, float *__restrict__ Jout) {
    __shared__ float tile[BY + 1][BX + 1];
    long j = (long)blockIdx.x * BX + threadIdx.x, i = (long)blockIdx.y * BY + threadIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    bool in = i < rows && j < cols;
    if (in) {
        tile[ty][tx] = c[i * cols + j];
        if (ty == BY - 1 || i == rows - 1) tile[ty + 1][tx] = c[(i < rows - 1 ? i + 1 : rows - 1) * cols + j];
        if (tx == BX - 1 || j == cols - 1) tile[ty][tx + 1] = c[i * cols + (j < cols - 1 ? j + 1 : cols - 1)];
    }
    __syncthreads();
    if (!in) return;
    long o = i * cols + j;
    float cc = tile[ty][tx];
    float d = cc * dN[o] + tile[ty + 1][tx] * dS[o] + cc * dW[o] + tile[ty][tx + 1] * dE[o];
    Jout[o] = J[o] + 0.25f * LAMBDA * d;
}

int main(int argc, char **argv) {
    long rows = xapp_arg(argc, argv, 1, 4096), cols = xapp_arg(argc, argv, 2, 4096);
    size_t cnt = (size_t)rows * cols, bytes = cnt * sizeof(float);
    float *J = (float *)xapp_alloc(bytes), *c = (float *)xapp_alloc(bytes);
    float *dN = (float *)xapp_alloc(bytes), *dS = (float *)xapp_alloc(bytes);
    float *dW = (float *)xapp_alloc(bytes), *dE = (float *)xapp_alloc(bytes), *Jout = (float *)xapp_alloc(bytes);
    xapp_seed(404);
    xapp_fill_float(J, cnt, 1.0f, 2.7f);
    xapp_fill_float(c, cnt, 0.0f, 1.0f);
    xapp_fill_float(dN, cnt, -0.8f, 0.8f);
    xapp_fill_float(dS, cnt, -0.8f, 0.8f);
    xapp_fill_float(dW, cnt, -0.8f, 0.8f);
    xapp_fill_float(dE, cnt, -0.8f, 0.8f);
    float *dJ, *dc, *ddN, *ddS, *ddW, *ddE, *dJout;
    XAPP_CUDA(cudaMalloc(&dJ, bytes)); XAPP_CUDA(cudaMalloc(&dc, bytes)); XAPP_CUDA(cudaMalloc(&ddN, bytes));
    XAPP_CUDA(cudaMalloc(&ddS, bytes)); XAPP_CUDA(cudaMalloc(&ddW, bytes)); XAPP_CUDA(cudaMalloc(&ddE, bytes));
    XAPP_CUDA(cudaMalloc(&dJout, bytes));
    XAPP_CUDA(cudaMemcpy(dJ, J, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dc, c, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(ddN, dN, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(ddS, dS, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(ddW, dW, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(ddE, dE, bytes, cudaMemcpyHostToDevice));
    dim3 threads(BX, BY);
    dim3 blocks((unsigned)((cols + BX - 1) / BX), (unsigned)((rows + BY - 1) / BY));
    XAPP_TIME_KERNEL(best, update<<<blocks, threads>>>(rows, cols, dJ, dc, ddN, ddS, ddW, ddE, dJout));
    XAPP_CUDA(cudaMemcpy(Jout, dJout, bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(Jout, cnt));
    cudaFree(dJ); cudaFree(dc); cudaFree(ddN); cudaFree(ddS); cudaFree(ddW); cudaFree(ddE); cudaFree(dJout);
    free(J); free(c); free(dN); free(dS); free(dW); free(dE); free(Jout);
    return 0;
}
