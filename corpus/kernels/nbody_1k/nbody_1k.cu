/* nbody_1k: input-size variant of corpus kernel nbody (n = 1024 bodies); same code, other default args and trip counts. */
/* nbody, CUDA: one thread per body; the bodies are streamed through shared memory in tiles of
 * BLOCK (each body read once per block, not once per thread), rsqrtf for 1/sqrt. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define SOFTENING2 1.0e-3f
#define BLOCK 256

__global__ void __launch_bounds__(BLOCK) nbody(int n, const float4 *__restrict__ b, float *__restrict__ acc) {
    __shared__ float4 tile[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    float4 bi = i < n ? b[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int base = 0; base < n; base += BLOCK) {
        int j = base + threadIdx.x;
        tile[threadIdx.x] = j < n ? b[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        __syncthreads();
        int count = n - base < BLOCK ? n - base : BLOCK;
#pragma unroll 8
        for (int k = 0; k < count; k++) {
            float4 bj = tile[k];
            float dx = bj.x - bi.x, dy = bj.y - bi.y, dz = bj.z - bi.z;
            float r2 = dx * dx + dy * dy + dz * dz + SOFTENING2;
            float inv_r = rsqrtf(r2);
            float s = bj.w * inv_r * inv_r * inv_r;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        __syncthreads();
    }
    if (i < n) {
        acc[i] = ax;
        acc[n + i] = ay;
        acc[2 * n + i] = az;
    }
}

int main(int argc, char **argv) {
    int n = (int)xapp_arg(argc, argv, 1, 1024);
    float *b = (float *)xapp_alloc((size_t)4 * n * sizeof(float)), *acc = (float *)xapp_alloc((size_t)3 * n * sizeof(float));
    xapp_seed(21);
    xapp_fill_float(b, 4 * (size_t)n, 0.0f, 1.0f);
    float4 *db;
    float *dacc;
    XAPP_CUDA(cudaMalloc(&db, (size_t)n * sizeof(float4)));
    XAPP_CUDA(cudaMalloc(&dacc, (size_t)3 * n * sizeof(float)));
    XAPP_CUDA(cudaMemcpy(db, b, (size_t)n * sizeof(float4), cudaMemcpyHostToDevice));  /* same x,y,z,m layout */
    int blocks = (n + BLOCK - 1) / BLOCK;
    XAPP_TIME_KERNEL(best, nbody<<<blocks, BLOCK>>>(n, db, dacc));
    XAPP_CUDA(cudaMemcpy(acc, dacc, (size_t)3 * n * sizeof(float), cudaMemcpyDeviceToHost));
    for (long k = 0; k < 3L * n; k++) acc[k] = fabsf(acc[k]);
    xapp_report(best, xapp_checksum_float(acc, 3 * (size_t)n));
    cudaFree(db); cudaFree(dacc); free(b); free(acc);
    return 0;
}
