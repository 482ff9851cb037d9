/* game_of_life, CUDA: one launch per generation; each 32x8 block stages its cells plus a one-cell
 * halo (corners included) in shared memory, then each thread applies the rule to one cell. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define BX 32
#define BY 8
#define TW (BX + 2)
#define TH (BY + 2)

__global__ void generation(long n, const unsigned char *__restrict__ src, unsigned char *__restrict__ dst) {
    __shared__ unsigned char tile[TH][TW];
    long i0 = (long)blockIdx.y * BY, j0 = (long)blockIdx.x * BX;  /* tile origin = top-left halo cell */
    int tid = threadIdx.y * BX + threadIdx.x;
    for (int t = tid; t < TH * TW; t += BX * BY) {
        long gi = i0 + t / TW, gj = j0 + t % TW;
        tile[t / TW][t % TW] = (gi < n && gj < n) ? src[gi * n + gj] : 0;
    }
    __syncthreads();
    long i = i0 + threadIdx.y + 1, j = j0 + threadIdx.x + 1;  /* interior cells start at 1 */
    if (i < n - 1 && j < n - 1) {
        int r = threadIdx.y + 1, c = threadIdx.x + 1;
        int count = tile[r - 1][c - 1] + tile[r - 1][c] + tile[r - 1][c + 1] + tile[r][c - 1] + tile[r][c + 1]
                  + tile[r + 1][c - 1] + tile[r + 1][c] + tile[r + 1][c + 1];
        if (tile[r][c])
            dst[i * n + j] = count == 2 || count == 3;
        else
            dst[i * n + j] = count == 3;
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 4096), generations = xapp_arg(argc, argv, 2, 10);
    size_t bytes = n * n;
    unsigned char *in = (unsigned char *)xapp_alloc(bytes), *out = (unsigned char *)xapp_alloc(bytes);
    xapp_seed(9);
    xapp_fill_uchar(in, bytes, 0, 1);
    for (long i = 0; i < n; i++) in[i] = in[(n - 1) * n + i] = in[i * n] = in[i * n + n - 1] = 0;  /* dead border */
    unsigned char *din, *da, *db;
    XAPP_CUDA(cudaMalloc(&din, bytes)); XAPP_CUDA(cudaMalloc(&da, bytes)); XAPP_CUDA(cudaMalloc(&db, bytes));
    XAPP_CUDA(cudaMemcpy(din, in, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(da, in, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(db, in, bytes, cudaMemcpyHostToDevice));
    dim3 threads(BX, BY);
    dim3 blocks((unsigned)((n - 2 + BX - 1) / BX), (unsigned)((n - 2 + BY - 1) / BY));
    const unsigned char *last = din;
    XAPP_TIME_KERNEL(best, {
        const unsigned char *src = din;
        unsigned char *dst = da;
        for (long g = 0; g < generations; g++) {
            generation<<<blocks, threads>>>(n, src, dst);
            src = dst;
            dst = dst == da ? db : da;
        }
        last = src;
    });
    XAPP_CUDA(cudaMemcpy(out, last, bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_uchar(out, bytes));
    cudaFree(din); cudaFree(da); cudaFree(db); free(in); free(out);
    return 0;
}
