/* sgemm_nt, CUDA: shared-memory tiling. A 32x8 block computes a 32x32 tile of C, each thread a
 * 4x1 strip (four rows, one column: the C side's register block). Per step of 32 along k, the
 * block stages a 32x32 tile of A and one of B in shared memory; both matrices are read along
 * their contiguous k dimension by consecutive threads (coalesced), the B tile is read across
 * rows with a padded stride (no bank conflicts), the A tile as a broadcast. Each thread adds its
 * products in ascending k (the C side sums in a vectorised, reassociated order). */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define TILE 32
#define TY 8
#define ROWS (TILE / TY)   /* 4 rows of C per thread */

__global__ void sgemm_nt(long m, long n, long k, const float *__restrict__ a, const float *__restrict__ b,
                         float *__restrict__ c) {
    __shared__ float as[TILE][TILE + 1], bs[TILE][TILE + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    long i0 = (long)blockIdx.y * TILE, j0 = (long)blockIdx.x * TILE;
    float acc[ROWS];
    for (int r = 0; r < ROWS; r++) acc[r] = 0.0f;
    for (long p0 = 0; p0 < k; p0 += TILE) {
        for (int r = ty; r < TILE; r += TY) {   /* rows i0 + r of A and j0 + r of B, k along tx */
            as[r][tx] = i0 + r < m && p0 + tx < k ? a[(i0 + r) * k + p0 + tx] : 0.0f;
            bs[r][tx] = j0 + r < n && p0 + tx < k ? b[(j0 + r) * k + p0 + tx] : 0.0f;
        }
        __syncthreads();
        for (int p = 0; p < TILE; p++) {
            float x = bs[tx][p];
            for (int r = 0; r < ROWS; r++) acc[r] += as[ty * ROWS + r][p] * x;
        }
        __syncthreads();
    }
    long j = j0 + tx;
    for (int r = 0; r < ROWS; r++) {
        long i = i0 + ty * ROWS + r;
        if (i < m && j < n) c[i * n + j] = acc[r];
    }
}

int main(int argc, char **argv) {
    long m = xapp_arg(argc, argv, 1, 1024), n = xapp_arg(argc, argv, 2, 1024), k = xapp_arg(argc, argv, 3, 1024);
    if (m % 4) { fprintf(stderr, "sgemm_nt: m must be a multiple of 4\n"); return 2; }
    float *a = (float *)xapp_alloc(m * k * sizeof(float)), *b = (float *)xapp_alloc(n * k * sizeof(float));
    float *c = (float *)xapp_alloc(m * n * sizeof(float));
    xapp_seed(515);
    xapp_fill_float(a, m * k, -1.0f, 1.0f);
    xapp_fill_float(b, n * k, -1.0f, 1.0f);
    float *da, *db, *dc;
    XAPP_CUDA(cudaMalloc(&da, m * k * sizeof(float))); XAPP_CUDA(cudaMalloc(&db, n * k * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&dc, m * n * sizeof(float)));
    XAPP_CUDA(cudaMemcpy(da, a, m * k * sizeof(float), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(db, b, n * k * sizeof(float), cudaMemcpyHostToDevice));
    dim3 threads(TILE, TY);
    dim3 blocks((unsigned)((n + TILE - 1) / TILE), (unsigned)((m + TILE - 1) / TILE));
    XAPP_TIME_KERNEL(best, sgemm_nt<<<blocks, threads>>>(m, n, k, da, db, dc));
    XAPP_CUDA(cudaMemcpy(c, dc, m * n * sizeof(float), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(c, m * n));
    cudaFree(da); cudaFree(db); cudaFree(dc); free(a); free(b); free(c);
    return 0;
}
