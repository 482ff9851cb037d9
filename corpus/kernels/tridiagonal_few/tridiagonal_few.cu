/* tridiagonal_few, CUDA: one thread per system (the Thomas algorithm is serial along a system),
 * a single block; the interleaved layout makes each row step one coalesced access for the block. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

__global__ void thomas(int ns, long n, const float *__restrict__ a, const float *__restrict__ b,
                       const float *__restrict__ c, const float *__restrict__ d, float *__restrict__ cp,
                       float *__restrict__ dp, float *__restrict__ x) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= ns) return;
    /* the previous row's cp and dp stay in registers */
    float cprev = c[s] / b[s], dprev = d[s] / b[s];
    cp[s] = cprev;
    dp[s] = dprev;
    for (long i = 1; i < n; i++) {
        long k = i * ns + s;
        float m = 1.0f / (b[k] - a[k] * cprev);
        cprev = c[k] * m;
        dprev = (d[k] - a[k] * dprev) * m;
        cp[k] = cprev;
        dp[k] = dprev;
    }
    float xnext = dprev;
    x[(n - 1) * ns + s] = xnext;
    for (long i = n - 2; i >= 0; i--) {
        long k = i * ns + s;
        xnext = dp[k] - cp[k] * xnext;
        x[k] = xnext;
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 18);
    int ns = (int)xapp_arg(argc, argv, 2, 16);
    size_t cnt = (size_t)n * ns, bytes = cnt * sizeof(float);
    float *a = (float *)xapp_alloc(bytes), *b = (float *)xapp_alloc(bytes), *c = (float *)xapp_alloc(bytes);
    float *d = (float *)xapp_alloc(bytes), *x = (float *)xapp_alloc(bytes);
    xapp_seed(26);
    xapp_fill_float(a, cnt, -1.0f, 0.0f);
    xapp_fill_float(b, cnt, 2.5f, 3.5f);
    xapp_fill_float(c, cnt, -1.0f, 0.0f);
    xapp_fill_float(d, cnt, 0.0f, 1.0f);
    float *da, *db, *dc, *dd, *dcp, *ddp, *dx;
    XAPP_CUDA(cudaMalloc(&da, bytes)); XAPP_CUDA(cudaMalloc(&db, bytes)); XAPP_CUDA(cudaMalloc(&dc, bytes));
    XAPP_CUDA(cudaMalloc(&dd, bytes)); XAPP_CUDA(cudaMalloc(&dcp, bytes)); XAPP_CUDA(cudaMalloc(&ddp, bytes));
    XAPP_CUDA(cudaMalloc(&dx, bytes));
    XAPP_CUDA(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dc, c, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dd, d, bytes, cudaMemcpyHostToDevice));
    int threads = ns < 256 ? ns : 256;
    int blocks = (ns + threads - 1) / threads;
    XAPP_TIME_KERNEL(best, thomas<<<blocks, threads>>>(ns, n, da, db, dc, dd, dcp, ddp, dx));
    XAPP_CUDA(cudaMemcpy(x, dx, bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(x, cnt));
    cudaFree(da); cudaFree(db); cudaFree(dc); cudaFree(dd); cudaFree(dcp); cudaFree(ddp); cudaFree(dx);
    free(a); free(b); free(c); free(d); free(x);
    return 0;
}
