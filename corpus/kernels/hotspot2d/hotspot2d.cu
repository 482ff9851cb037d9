/* hotspot2d, CUDA: one launch per time step; 32x8 thread blocks stage their tile of temperatures plus
 * a one-cell halo (replicated at the chip's edge) in shared memory, so each temperature is read from
 * global memory about once per step; the power map is read coalesced. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define BX 32
#define BY 8

typedef struct {
    float sdc, rx1, ry1, rz1, amb;   /* step/Cap, 1/Rx, 1/Ry, 1/Rz, ambient temperature */
} chip;

/* Rodinia hotspot's constants (in double, the same code on both sides). */
static chip chip_constants(long rows, long cols) {
    double t_chip = 0.0005, height = 0.016, width = 0.016, k_si = 100.0, spec_heat = 1.75e6, factor = 0.5;
    double gh = height / rows, gw = width / cols;
    double cap = factor * spec_heat * t_chip * gw * gh;
    double rx = gw / (2.0 * k_si * t_chip * gh), ry = gh / (2.0 * k_si * t_chip * gw), rz = t_chip / (k_si * gh * gw);
    double max_slope = 3.0e6 / (factor * t_chip * spec_heat), step = 0.001 / max_slope;
    chip k = {(float)(step / cap), (float)(1.0 / rx), (float)(1.0 / ry), (float)(1.0 / rz), 80.0f};
    return k;
}

__global__ void step(long rows, long cols, chip k, const float *__restrict__ src, const float *__restrict__ power,
                     float *__restrict__ dst) {
    __shared__ float tile[BY + 2][BX + 2];
    long j = (long)blockIdx.x * BX + threadIdx.x, i = (long)blockIdx.y * BY + threadIdx.y;
    int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
    bool in = i < rows && j < cols;
    if (in) {
        tile[ty][tx] = src[i * cols + j];
        if (threadIdx.y == 0) tile[0][tx] = src[(i > 0 ? i - 1 : 0) * cols + j];
        if (threadIdx.y == BY - 1 || i == rows - 1) tile[ty + 1][tx] = src[(i < rows - 1 ? i + 1 : rows - 1) * cols + j];
        if (threadIdx.x == 0) tile[ty][0] = src[i * cols + (j > 0 ? j - 1 : 0)];
        if (threadIdx.x == BX - 1 || j == cols - 1) tile[ty][tx + 1] = src[i * cols + (j < cols - 1 ? j + 1 : cols - 1)];
    }
    __syncthreads();
    if (!in) return;
    float t = tile[ty][tx];
    float n = tile[ty - 1][tx], s = tile[ty + 1][tx], w = tile[ty][tx - 1], e = tile[ty][tx + 1];
    dst[i * cols + j] = t + k.sdc * (power[i * cols + j] + (s + n - 2.0f * t) * k.ry1 + (e + w - 2.0f * t) * k.rx1
                                     + (k.amb - t) * k.rz1);
}

int main(int argc, char **argv) {
    long rows = xapp_arg(argc, argv, 1, 1024), cols = xapp_arg(argc, argv, 2, 1024), steps = xapp_arg(argc, argv, 3, 100);
    if (cols < 2) { fprintf(stderr, "hotspot2d: needs at least 2 columns\n"); return 2; }
    size_t cnt = (size_t)rows * cols, bytes = cnt * sizeof(float);
    float *temp = (float *)xapp_alloc(bytes), *power = (float *)xapp_alloc(bytes), *out = (float *)xapp_alloc(bytes);
    xapp_seed(407);
    xapp_fill_float(temp, cnt, 323.0f, 343.0f);
    xapp_fill_float(power, cnt, 0.0f, 0.5f);
    chip k = chip_constants(rows, cols);
    float *dtemp, *dpower, *da, *db;
    XAPP_CUDA(cudaMalloc(&dtemp, bytes)); XAPP_CUDA(cudaMalloc(&dpower, bytes));
    XAPP_CUDA(cudaMalloc(&da, bytes)); XAPP_CUDA(cudaMalloc(&db, bytes));
    XAPP_CUDA(cudaMemcpy(dtemp, temp, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dpower, power, bytes, cudaMemcpyHostToDevice));
    dim3 threads(BX, BY);
    dim3 blocks((unsigned)((cols + BX - 1) / BX), (unsigned)((rows + BY - 1) / BY));
    const float *last = dtemp;
    XAPP_TIME_KERNEL(best, {
        const float *src = dtemp;
        float *dst = da;
        for (long t = 0; t < steps; t++) {
            step<<<blocks, threads>>>(rows, cols, k, src, dpower, dst);
            src = dst;
            dst = dst == da ? db : da;
        }
        last = src;
    });
    XAPP_CUDA(cudaMemcpy(out, last, bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(out, cnt));
    cudaFree(dtemp); cudaFree(dpower); cudaFree(da); cudaFree(db); free(temp); free(power); free(out);
    return 0;
}
