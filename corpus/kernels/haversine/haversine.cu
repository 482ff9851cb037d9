/* haversine, CUDA: one thread per pair, four coalesced input streams, accurate (non-fast-math)
 * sinf/cosf/asinf/sqrtf as on the CPU. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define EARTH_RADIUS_KM 6371.0f

__global__ void haversine(long n, const float *__restrict__ lat1, const float *__restrict__ lon1,
                          const float *__restrict__ lat2, const float *__restrict__ lon2, float *__restrict__ dist) {
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float sdlat = sinf(0.5f * (lat2[i] - lat1[i]));
    float sdlon = sinf(0.5f * (lon2[i] - lon1[i]));
    float a = sdlat * sdlat + cosf(lat1[i]) * cosf(lat2[i]) * sdlon * sdlon;
    a = fminf(a, 1.0f);
    dist[i] = 2.0f * EARTH_RADIUS_KM * asinf(sqrtf(a));
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 22);
    size_t bytes = (size_t)n * sizeof(float);
    float *lat1 = (float *)xapp_alloc(bytes), *lon1 = (float *)xapp_alloc(bytes);
    float *lat2 = (float *)xapp_alloc(bytes), *lon2 = (float *)xapp_alloc(bytes), *dist = (float *)xapp_alloc(bytes);
    xapp_seed(23);
    xapp_fill_float(lat1, n, -1.5707963f, 1.5707963f);
    xapp_fill_float(lon1, n, -3.1415927f, 3.1415927f);
    xapp_fill_float(lat2, n, -1.5707963f, 1.5707963f);
    xapp_fill_float(lon2, n, -3.1415927f, 3.1415927f);
    float *dlat1, *dlon1, *dlat2, *dlon2, *ddist;
    XAPP_CUDA(cudaMalloc(&dlat1, bytes)); XAPP_CUDA(cudaMalloc(&dlon1, bytes));
    XAPP_CUDA(cudaMalloc(&dlat2, bytes)); XAPP_CUDA(cudaMalloc(&dlon2, bytes)); XAPP_CUDA(cudaMalloc(&ddist, bytes));
    XAPP_CUDA(cudaMemcpy(dlat1, lat1, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dlon1, lon1, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dlat2, lat2, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dlon2, lon2, bytes, cudaMemcpyHostToDevice));
    int threads = 256;
    long blocks = (n + threads - 1) / threads;
    XAPP_TIME_KERNEL(best, haversine<<<blocks, threads>>>(n, dlat1, dlon1, dlat2, dlon2, ddist));
    XAPP_CUDA(cudaMemcpy(dist, ddist, bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(dist, n));
    cudaFree(dlat1); cudaFree(dlon1); cudaFree(dlat2); cudaFree(dlon2); cudaFree(ddist);
    free(lat1); free(lon1); free(lat2); free(lon2); free(dist);
    return 0;
}
