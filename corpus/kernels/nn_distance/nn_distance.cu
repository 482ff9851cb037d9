/* nn_distance, CUDA: one thread per record; each thread loads its (lat, lng) struct as one 8-byte
 * float2 (a warp reads 256 contiguous bytes) and writes its distance coalesced. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

__global__ void euclid(long n, const float2 *__restrict__ rec, float tlat, float tlng, float *__restrict__ dist) {
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float2 r = rec[i];
    float dlat = tlat - r.x, dlng = tlng - r.y;
    dist[i] = sqrtf(dlat * dlat + dlng * dlng);
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 33554432);
    float *rec = (float *)xapp_alloc(2 * (size_t)n * sizeof(float));
    float *dist = (float *)xapp_alloc(n * sizeof(float));
    xapp_seed(405);
    xapp_fill_float(rec, 2 * (size_t)n, 0.0f, 90.0f);   /* lat, lng, lat, lng, ... */
    float target[2];
    xapp_fill_float(target, 2, 30.0f, 60.0f);
    float2 *drec;
    float *ddist;
    XAPP_CUDA(cudaMalloc(&drec, n * sizeof(float2))); XAPP_CUDA(cudaMalloc(&ddist, n * sizeof(float)));
    XAPP_CUDA(cudaMemcpy(drec, rec, 2 * (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    int threads = 256;
    long blocks = (n + threads - 1) / threads;
    XAPP_TIME_KERNEL(best, euclid<<<blocks, threads>>>(n, drec, target[0], target[1], ddist));
    XAPP_CUDA(cudaMemcpy(dist, ddist, n * sizeof(float), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(dist, n));
    cudaFree(drec); cudaFree(ddist); free(rec); free(dist);
    return 0;
}
