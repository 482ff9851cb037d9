/* covariance, CUDA: three launches. Column means (one thread per feature, coalesced across
 * threads, same summation order as the C side), centring (one thread per value), then the
 * m x m product in 16x16 shared-memory tiles over the sample dimension, k in the C side's order. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define TILE 16

__global__ void column_means(long n, long m, const float *__restrict__ data, float *__restrict__ mean) {
    long j = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m) return;
    float sum = 0.0f;
    for (long k = 0; k < n; k++) sum += data[k * m + j];
    mean[j] = sum / (float)n;
}

__global__ void centre(long n, long m, const float *__restrict__ data, const float *__restrict__ mean,
                       float *__restrict__ centred) {
    long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n * m) centred[t] = data[t] - mean[t % m];
}

__global__ void cov_product(long n, long m, const float *__restrict__ c, float *__restrict__ cov) {
    __shared__ float as[TILE][TILE + 1], bs[TILE][TILE + 1];  /* [sample][feature] */
    int tx = threadIdx.x, ty = threadIdx.y;
    long i0 = (long)blockIdx.y * TILE, j0 = (long)blockIdx.x * TILE;
    float sum = 0.0f;
    for (long k0 = 0; k0 < n; k0 += TILE) {
        long k = k0 + ty;
        as[ty][tx] = (k < n && i0 + tx < m) ? c[k * m + i0 + tx] : 0.0f;
        bs[ty][tx] = (k < n && j0 + tx < m) ? c[k * m + j0 + tx] : 0.0f;
        __syncthreads();
        for (int kk = 0; kk < TILE; kk++) sum += as[kk][ty] * bs[kk][tx];
        __syncthreads();
    }
    long i = i0 + ty, j = j0 + tx;
    if (i < m && j < m) cov[i * m + j] = sum / (float)(n - 1);
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1024), m = xapp_arg(argc, argv, 2, 256);
    float *data = (float *)xapp_alloc(n * m * sizeof(float)), *cov = (float *)xapp_alloc(m * m * sizeof(float));
    xapp_seed(19);
    xapp_fill_float(data, n * m, 0.0f, 10.0f);
    float *ddata, *dcentred, *dmean, *dcov;
    XAPP_CUDA(cudaMalloc(&ddata, n * m * sizeof(float))); XAPP_CUDA(cudaMalloc(&dcentred, n * m * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&dmean, m * sizeof(float))); XAPP_CUDA(cudaMalloc(&dcov, m * m * sizeof(float)));
    XAPP_CUDA(cudaMemcpy(ddata, data, n * m * sizeof(float), cudaMemcpyHostToDevice));
    dim3 tile_threads(TILE, TILE);
    dim3 tile_blocks((unsigned)((m + TILE - 1) / TILE), (unsigned)((m + TILE - 1) / TILE));
    long mean_blocks = (m + 127) / 128, centre_blocks = (n * m + 255) / 256;
    XAPP_TIME_KERNEL(best, column_means<<<mean_blocks, 128>>>(n, m, ddata, dmean);
                           centre<<<centre_blocks, 256>>>(n, m, ddata, dmean, dcentred);
                           cov_product<<<tile_blocks, tile_threads>>>(n, m, dcentred, dcov));
    XAPP_CUDA(cudaMemcpy(cov, dcov, m * m * sizeof(float), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(cov, m * m));
    cudaFree(ddata); cudaFree(dcentred); cudaFree(dmean); cudaFree(dcov); free(data); free(cov);
    return 0;
}
