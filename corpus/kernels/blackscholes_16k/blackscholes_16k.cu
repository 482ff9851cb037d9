/* blackscholes_16k: input-size variant of corpus kernel blackscholes (n = 2^14 options); same code, other default args and trip counts. */
/* blackscholes, CUDA: one thread per option, coalesced loads and stores, accurate (non-fast-math)
 * expf/logf/sqrtf as on the CPU. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define RISKFREE 0.02f
#define VOLATILITY 0.30f

__device__ __forceinline__ float cnd(float d) {
    const float A1 = 0.31938153f, A2 = -0.356563782f, A3 = 1.781477937f, A4 = -1.821255978f, A5 = 1.330274429f;
    const float RSQRT2PI = 0.39894228040143267794f;
    float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float c = RSQRT2PI * expf(-0.5f * d * d) * (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))));
    return d > 0.0f ? 1.0f - c : c;
}

__global__ void blackscholes(long n, const float *__restrict__ price, const float *__restrict__ strike,
                             const float *__restrict__ years, float *__restrict__ out) {
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = price[i], x = strike[i], t = years[i];
    float sqrt_t = sqrtf(t);
    float d1 = (logf(s / x) + (RISKFREE + 0.5f * VOLATILITY * VOLATILITY) * t) / (VOLATILITY * sqrt_t);
    float d2 = d1 - VOLATILITY * sqrt_t;
    float cnd1 = cnd(d1), cnd2 = cnd(d2);
    float discount = expf(-RISKFREE * t);
    out[i] = s * cnd1 - x * discount * cnd2;
    out[n + i] = x * discount * (1.0f - cnd2) - s * (1.0f - cnd1);
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 14);
    size_t bytes = (size_t)n * sizeof(float);
    float *price = (float *)xapp_alloc(bytes), *strike = (float *)xapp_alloc(bytes);
    float *years = (float *)xapp_alloc(bytes), *out = (float *)xapp_alloc(2 * bytes);
    xapp_seed(20);
    xapp_fill_float(price, n, 5.0f, 30.0f);
    xapp_fill_float(strike, n, 1.0f, 100.0f);
    xapp_fill_float(years, n, 0.25f, 10.0f);
    float *dprice, *dstrike, *dyears, *dout;
    XAPP_CUDA(cudaMalloc(&dprice, bytes)); XAPP_CUDA(cudaMalloc(&dstrike, bytes));
    XAPP_CUDA(cudaMalloc(&dyears, bytes)); XAPP_CUDA(cudaMalloc(&dout, 2 * bytes));
    XAPP_CUDA(cudaMemcpy(dprice, price, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dstrike, strike, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dyears, years, bytes, cudaMemcpyHostToDevice));
    int threads = 256;
    long blocks = (n + threads - 1) / threads;
    XAPP_TIME_KERNEL(best, blackscholes<<<blocks, threads>>>(n, dprice, dstrike, dyears, dout));
    XAPP_CUDA(cudaMemcpy(out, dout, 2 * bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(out, 2 * n));
    cudaFree(dprice); cudaFree(dstrike); cudaFree(dyears); cudaFree(dout);
    free(price); free(strike); free(years); free(out);
    return 0;
}
