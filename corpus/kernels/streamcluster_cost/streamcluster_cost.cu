/* streamcluster_cost, CUDA: one launch per candidate (as Rodinia's pgain), one thread per point; the
 * coordinates are transposed on the host (coordinate-major, as Rodinia's CUDA streamcluster keeps
 * them) so a warp reads each coordinate of 32 points coalesced, the candidate's coordinates are staged
 * in shared memory. Savings and switch counts are summed by warp shuffles, the per-centre losses by
 * shared-memory atomics, and each block adds its totals to the candidate's with one global atomic
 * per bin. The sums are zeroed inside the timed statements, so every repeat starts afresh. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define THREADS 256
#define MAX_K 64
#define MAX_DIM 256

__global__ void pgain(long n, int dim, int k, long cand, const float *__restrict__ pts_t, const float *__restrict__ wt,
                      const float *__restrict__ cost, const int *__restrict__ assign, double *__restrict__ gain,
                      double *__restrict__ lower, int *__restrict__ nswitch) {
    __shared__ float xs[MAX_DIM];
    __shared__ double s_low[MAX_K];
    __shared__ double s_gain;
    __shared__ int s_sw;
    for (int f = threadIdx.x; f < dim; f += THREADS) xs[f] = pts_t[(long)f * n + cand];
    for (int b = threadIdx.x; b < k; b += THREADS) s_low[b] = 0.0;
    if (threadIdx.x == 0) {
        s_gain = 0.0;
        s_sw = 0;
    }
    __syncthreads();
    long i = (long)blockIdx.x * THREADS + threadIdx.x;
    double g = 0.0;
    int sw = 0;
    if (i < n) {
        float d = 0.0f;
        for (int f = 0; f < dim; f++) {
            float t = pts_t[(long)f * n + i] - xs[f];
            d += t * t;
        }
        float x_cost = d * wt[i];
        if (x_cost < cost[i]) {
            g = cost[i] - x_cost;
            sw = 1;
        } else {
            atomicAdd(&s_low[assign[i]], (double)(cost[i] - x_cost));
        }
    }
    for (int off = 16; off > 0; off >>= 1) {
        g += __shfl_down_sync(0xffffffffu, g, off);
        sw += __shfl_down_sync(0xffffffffu, sw, off);
    }
    if (threadIdx.x % 32 == 0) {
        atomicAdd(&s_gain, g);
        atomicAdd(&s_sw, sw);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < k; b += THREADS) atomicAdd(&lower[b], s_low[b]);
    if (threadIdx.x == 0) {
        atomicAdd(gain, s_gain);
        atomicAdd(nswitch, s_sw);
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 65536);
    int dim = (int)xapp_arg(argc, argv, 2, 64), k = (int)xapp_arg(argc, argv, 3, 16), ncand = (int)xapp_arg(argc, argv, 4, 64);
    if (dim > MAX_DIM || k > MAX_K) { fprintf(stderr, "streamcluster_cost: dim <= %d and k <= %d\n", MAX_DIM, MAX_K); return 2; }
    size_t pbytes = (size_t)n * dim * sizeof(float);
    float *pts = (float *)xapp_alloc(pbytes), *pts_t = (float *)xapp_alloc(pbytes), *wt = (float *)xapp_alloc(n * sizeof(float));
    float *cost = (float *)xapp_alloc(n * sizeof(float));
    int *assign = (int *)xapp_alloc(n * sizeof(int)), *cand = (int *)xapp_alloc(ncand * sizeof(int));
    double *gain = (double *)xapp_alloc(ncand * sizeof(double)), *lower = (double *)xapp_alloc((size_t)ncand * k * sizeof(double));
    int *nswitch = (int *)xapp_alloc(ncand * sizeof(int));
    xapp_seed(412);
    xapp_fill_float(pts, (size_t)n * dim, 0.0f, 1.0f);
    xapp_fill_float(wt, n, 0.5f, 1.5f);
    xapp_fill_float(cost, n, 0.7f * dim / 6.0f, 1.1f * dim / 6.0f);
    for (long i = 0; i < n; i++) cost[i] *= wt[i];
    xapp_fill_int(assign, n, 0, k);
    xapp_fill_int(cand, ncand, 0, (int)n);
    for (long i = 0; i < n; i++)
        for (int f = 0; f < dim; f++) pts_t[(size_t)f * n + i] = pts[(size_t)i * dim + f];
    float *dpts_t, *dwt, *dcost;
    int *dassign, *dnswitch;
    double *dgain, *dlower;
    XAPP_CUDA(cudaMalloc(&dpts_t, pbytes)); XAPP_CUDA(cudaMalloc(&dwt, n * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&dcost, n * sizeof(float))); XAPP_CUDA(cudaMalloc(&dassign, n * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dnswitch, ncand * sizeof(int))); XAPP_CUDA(cudaMalloc(&dgain, ncand * sizeof(double)));
    XAPP_CUDA(cudaMalloc(&dlower, (size_t)ncand * k * sizeof(double)));
    XAPP_CUDA(cudaMemcpy(dpts_t, pts_t, pbytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dwt, wt, n * sizeof(float), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dcost, cost, n * sizeof(float), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dassign, assign, n * sizeof(int), cudaMemcpyHostToDevice));
    long blocks = (n + THREADS - 1) / THREADS;
    XAPP_TIME_KERNEL(best, {
        XAPP_CUDA(cudaMemsetAsync(dgain, 0, ncand * sizeof(double)));
        XAPP_CUDA(cudaMemsetAsync(dlower, 0, (size_t)ncand * k * sizeof(double)));
        XAPP_CUDA(cudaMemsetAsync(dnswitch, 0, ncand * sizeof(int)));
        for (int c = 0; c < ncand; c++)
            pgain<<<blocks, THREADS>>>(n, dim, k, (long)cand[c], dpts_t, dwt, dcost, dassign, dgain + c,
                                       dlower + (size_t)c * k, dnswitch + c);
    });
    XAPP_CUDA(cudaMemcpy(gain, dgain, ncand * sizeof(double), cudaMemcpyDeviceToHost));
    XAPP_CUDA(cudaMemcpy(lower, dlower, (size_t)ncand * k * sizeof(double), cudaMemcpyDeviceToHost));
    XAPP_CUDA(cudaMemcpy(nswitch, dnswitch, ncand * sizeof(int), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_double(gain, ncand) - xapp_checksum_double(lower, (size_t)ncand * k)
                          + xapp_checksum_int(nswitch, ncand));
    cudaFree(dpts_t); cudaFree(dwt); cudaFree(dcost); cudaFree(dassign); cudaFree(dnswitch); cudaFree(dgain); cudaFree(dlower);
    free(pts); free(pts_t); free(wt); free(cost); free(assign); free(cand); free(gain); free(lower); free(nswitch);
    return 0;
}
