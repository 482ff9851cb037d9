/* lud_block_diag, CUDA: one launch per block of the chain (the next block needs this one's pivots),
 * each a single 32x32-thread block, as Rodinia's lud_diagonal runs one thread block: the block is
 * loaded into shared memory (coalesced rows), coupled to the previous block's pivots, then the 31
 * elimination steps run with two barriers each (the multipliers of column k, then the trailing
 * update, one element per thread), and the factors are stored back. One SM busy, the rest idle. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define BS 32          /* block order */
#define SHIFT 0.5f     /* coupling: d[i][i] += SHIFT * previous block's u[i][i] */

__global__ void __launch_bounds__(BS * BS) diagonal(int kb, const float *__restrict__ in, float *__restrict__ out) {
    __shared__ float s[BS][BS + 1];
    int tx = threadIdx.x, ty = threadIdx.y;   /* column, row */
    const float *a = in + (long)kb * BS * BS;
    float *d = out + (long)kb * BS * BS;
    float v = a[ty * BS + tx];
    if (kb > 0 && tx == ty) v += SHIFT * d[ty * BS + tx - BS * BS];   /* the previous launch's pivot */
    s[ty][tx] = v;
    __syncthreads();
    for (int k = 0; k < BS - 1; k++) {
        if (tx == k && ty > k) s[ty][k] = s[ty][k] / s[k][k];
        __syncthreads();
        if (ty > k && tx > k) s[ty][tx] -= s[ty][k] * s[k][tx];
        __syncthreads();
    }
    d[ty * BS + tx] = s[ty][tx];
}

int main(int argc, char **argv) {
    int nblk = (int)xapp_arg(argc, argv, 1, 16384);
    size_t cnt = (size_t)nblk * BS * BS, bytes = cnt * sizeof(float);
    float *blk0 = (float *)xapp_alloc(bytes), *blk = (float *)xapp_alloc(bytes);
    xapp_seed(415);
    xapp_fill_float(blk0, cnt, -1.0f, 1.0f);
    for (long b = 0; b < nblk; b++)
        for (int i = 0; i < BS; i++) blk0[b * BS * BS + i * BS + i] += (float)BS;
    float *din, *dout;
    XAPP_CUDA(cudaMalloc(&din, bytes)); XAPP_CUDA(cudaMalloc(&dout, bytes));
    XAPP_CUDA(cudaMemcpy(din, blk0, bytes, cudaMemcpyHostToDevice));
    XAPP_TIME_KERNEL(best, {
        for (int kb = 0; kb < nblk; kb++) diagonal<<<1, dim3(BS, BS)>>>(kb, din, dout);
    });
    XAPP_CUDA(cudaMemcpy(blk, dout, bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(blk, cnt));
    cudaFree(din); cudaFree(dout); free(blk0); free(blk);
    return 0;
}
