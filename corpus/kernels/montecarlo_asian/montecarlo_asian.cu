/* montecarlo_asian, CUDA: one thread per path; the LCG state, the price and the running sum stay
 * in registers, the step loop is the same serial chain as on the C side (full-precision
 * logf/sqrtf/sinf/cosf/expf). The constants derived from the model are computed once on the host,
 * as the C side computes them before its path loop. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define THREADS 128
#define LCG_A 6364136223846793005ULL
#define LCG_C 1442695040888963407ULL

#define S0 100.0f
#define STRIKE 100.0f
#define RATE 0.05f
#define SIGMA 0.2f
#define MATURITY 1.0f

__global__ void montecarlo_asian(int paths, int steps, float drift, float vol, float discount,
                                 const int *__restrict__ seeds, float *__restrict__ payoff) {
    const float two_pi = 6.283185307f, inv_2_24 = 1.0f / 16777216.0f;
    int p = blockIdx.x * THREADS + threadIdx.x;
    if (p >= paths) return;
    unsigned long long s = (unsigned long long)seeds[p];
    float price = S0, sum = 0.0f;
    for (int k = 0; k < steps; k += 2) {
        s = s * LCG_A + LCG_C;
        float u1 = (float)((s >> 40) + 1) * inv_2_24;
        s = s * LCG_A + LCG_C;
        float u2 = (float)(s >> 40) * inv_2_24;
        float rad = sqrtf(-2.0f * logf(u1)), theta = two_pi * u2;
        price *= expf(drift + vol * rad * cosf(theta));
        sum += price;
        price *= expf(drift + vol * rad * sinf(theta));
        sum += price;
    }
    float avg = sum / (float)steps;
    payoff[p] = discount * (avg > STRIKE ? avg - STRIKE : 0.0f);
}

int main(int argc, char **argv) {
    int paths = (int)xapp_arg(argc, argv, 1, 131072), steps = (int)xapp_arg(argc, argv, 2, 64);
    if (steps % 2) { fprintf(stderr, "montecarlo_asian: steps must be even\n"); return 2; }
    int *seeds = (int *)xapp_alloc(paths * sizeof(int));
    float *payoff = (float *)xapp_alloc(paths * sizeof(float));
    xapp_seed(509);
    xapp_fill_int(seeds, paths, 0, 2147483647);
    const float dt = MATURITY / (float)steps;
    const float drift = (RATE - 0.5f * SIGMA * SIGMA) * dt, vol = SIGMA * sqrtf(dt);
    const float discount = expf(-RATE * MATURITY);
    int *dseeds;
    float *dpayoff;
    XAPP_CUDA(cudaMalloc(&dseeds, paths * sizeof(int))); XAPP_CUDA(cudaMalloc(&dpayoff, paths * sizeof(float)));
    XAPP_CUDA(cudaMemcpy(dseeds, seeds, paths * sizeof(int), cudaMemcpyHostToDevice));
    int blocks = (paths + THREADS - 1) / THREADS;
    XAPP_TIME_KERNEL(best, montecarlo_asian<<<blocks, THREADS>>>(paths, steps, drift, vol, discount, dseeds, dpayoff));
    XAPP_CUDA(cudaMemcpy(payoff, dpayoff, paths * sizeof(float), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(payoff, paths));
    cudaFree(dseeds); cudaFree(dpayoff); free(seeds); free(payoff);
    return 0;
}
