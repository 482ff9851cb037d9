/* nasft_evolve, CUDA: one launch per time step, one thread per complex element: a 16-byte double2
 * load and store and an 8-byte factor load, all coalesced. The decay factors are computed on the
 * host, as on the C side, and copied once; steps ping-pong between two buffers. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define THREADS 256

static void decay_factors(int nx, int ny, int nz, double *tw) {
    const double pi = 3.141592653589793238, alpha = 1.0e-6, ap = -4.0 * alpha * pi * pi;
    for (int k = 0; k < nz; k++) {
        int kk = (k + nz / 2) % nz - nz / 2;
        for (int j = 0; j < ny; j++) {
            int jj = (j + ny / 2) % ny - ny / 2;
            for (int i = 0; i < nx; i++) {
                int ii = (i + nx / 2) % nx - nx / 2;
                tw[((long)k * ny + j) * nx + i] = exp(ap * (double)(ii * ii + jj * jj + kk * kk));
            }
        }
    }
}

__global__ void evolve(long n, const double2 *__restrict__ src, const double *__restrict__ tw,
                       double2 *__restrict__ dst) {
    long e = (long)blockIdx.x * THREADS + threadIdx.x;
    if (e >= n) return;
    double2 v = src[e];
    double f = tw[e];
    dst[e] = make_double2(v.x * f, v.y * f);
}

int main(int argc, char **argv) {
    int nx = (int)xapp_arg(argc, argv, 1, 256), ny = (int)xapp_arg(argc, argv, 2, 256);
    int nz = (int)xapp_arg(argc, argv, 3, 128), steps = (int)xapp_arg(argc, argv, 4, 6);
    long n = (long)nx * ny * nz;
    size_t ubytes = 2 * n * sizeof(double), twbytes = n * sizeof(double);
    double *u0 = (double *)xapp_alloc(ubytes), *tw = (double *)xapp_alloc(twbytes), *out = (double *)xapp_alloc(ubytes);
    decay_factors(nx, ny, nz, tw);
    xapp_seed(512);
    xapp_fill_double(u0, 2 * n, -1.0, 1.0);
    double2 *du0, *da, *db;
    double *dtw;
    XAPP_CUDA(cudaMalloc(&du0, ubytes)); XAPP_CUDA(cudaMalloc(&da, ubytes)); XAPP_CUDA(cudaMalloc(&db, ubytes));
    XAPP_CUDA(cudaMalloc(&dtw, twbytes));
    XAPP_CUDA(cudaMemcpy(du0, u0, ubytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dtw, tw, twbytes, cudaMemcpyHostToDevice));
    long blocks = (n + THREADS - 1) / THREADS;
    const double2 *last = du0;
    XAPP_TIME_KERNEL(best, {
        const double2 *src = du0;
        double2 *dst = da;
        for (int t = 0; t < steps; t++) {
            evolve<<<blocks, THREADS>>>(n, src, dtw, dst);
            src = dst;
            dst = dst == da ? db : da;
        }
        last = src;
    });
    XAPP_CUDA(cudaMemcpy(out, last, ubytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_double(out, 2 * n));
    cudaFree(du0); cudaFree(da); cudaFree(db); cudaFree(dtw); free(u0); free(tw); free(out);
    return 0;
}
