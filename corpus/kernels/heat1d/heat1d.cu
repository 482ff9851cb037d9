/* heat1d, CUDA: one launch per time step, one thread per point; neighbouring threads share the
 * u[i-1], u[i+1] loads through L1, so every access is coalesced. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

__global__ void step(long n, double r, const double *__restrict__ u, double *__restrict__ v) {
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x + 1;  /* interior points start at 1 */
    if (i < n - 1) v[i] = u[i] + r * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 22), steps = xapp_arg(argc, argv, 2, 20);
    size_t bytes = n * sizeof(double);
    double *in = (double *)xapp_alloc(bytes), *out = (double *)xapp_alloc(bytes);
    xapp_seed(6);
    xapp_fill_double(in, n, 0.0, 100.0);
    double *din, *da, *db;
    XAPP_CUDA(cudaMalloc(&din, bytes)); XAPP_CUDA(cudaMalloc(&da, bytes)); XAPP_CUDA(cudaMalloc(&db, bytes));
    XAPP_CUDA(cudaMemcpy(din, in, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(da, in, bytes, cudaMemcpyHostToDevice));  /* fixed ends */
    XAPP_CUDA(cudaMemcpy(db, in, bytes, cudaMemcpyHostToDevice));
    int threads = 256;
    long blocks = (n - 2 + threads - 1) / threads;
    const double *last = din;
    XAPP_TIME_KERNEL(best, {
        const double *u = din;
        double *v = da;
        for (long t = 0; t < steps; t++) {
            step<<<blocks, threads>>>(n, 0.25, u, v);
            u = v;
            v = v == da ? db : da;
        }
        last = u;
    });
    XAPP_CUDA(cudaMemcpy(out, last, bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_double(out, n));
    cudaFree(din); cudaFree(da); cudaFree(db); free(in); free(out);
    return 0;
}
