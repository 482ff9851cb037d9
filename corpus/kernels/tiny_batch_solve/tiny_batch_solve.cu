/* tiny_batch_solve, CUDA: one thread per system, 8 systems per block (one block at the default
 * size). The block copies its systems' matrices and right-hand sides into shared memory with
 * coalesced loads, laid out [row][column][system] so that the threads' accesses to the same entry
 * fall into different banks; each thread then runs the same partial-pivoting elimination and back
 * substitution as the C side on its own system (the solution overwrites the last column).
 * GPU-hostile by design: 8 busy threads and a few thousand dependent flops each. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define N 16
#define SYS_PER_BLOCK 8

__global__ void __launch_bounds__(SYS_PER_BLOCK) tiny_batch_solve(int nsys, const double *__restrict__ a_in,
                                                                  const double *__restrict__ b_in,
                                                                  double *__restrict__ x_out) {
    __shared__ double a[N][N + 1][SYS_PER_BLOCK];   /* 17 KiB */
    int t = threadIdx.x;
    int first = blockIdx.x * SYS_PER_BLOCK;
    int count = nsys - first < SYS_PER_BLOCK ? nsys - first : SYS_PER_BLOCK;
    const double *as = a_in + (size_t)first * N * N, *bs = b_in + (size_t)first * N;
    for (int w = t; w < count * N * N; w += SYS_PER_BLOCK) a[(w / N) % N][w % N][w / (N * N)] = as[w];
    for (int w = t; w < count * N; w += SYS_PER_BLOCK) a[w % N][N][w / N] = bs[w];
    __syncthreads();
    if (t >= count) return;   /* no barrier below */
    for (int k = 0; k < N; k++) {
        int p = k;
        double big = fabs(a[k][k][t]);
        for (int i = k + 1; i < N; i++) {
            double v = fabs(a[i][k][t]);
            if (v > big) {
                big = v;
                p = i;
            }
        }
        if (p != k) {
            for (int j = k; j <= N; j++) {
                double tmp = a[k][j][t];
                a[k][j][t] = a[p][j][t];
                a[p][j][t] = tmp;
            }
        }
        double inv = 1.0 / a[k][k][t];
        for (int i = k + 1; i < N; i++) {
            double f = a[i][k][t] * inv;
            for (int j = k + 1; j <= N; j++) a[i][j][t] -= f * a[k][j][t];
        }
    }
    for (int i = N - 1; i >= 0; i--) {
        double sum = a[i][N][t];
        for (int j = i + 1; j < N; j++) sum -= a[i][j][t] * a[j][N][t];
        a[i][N][t] = sum / a[i][i][t];
    }
    for (int i = 0; i < N; i++) x_out[(size_t)(first + t) * N + i] = a[i][N][t];
}

int main(int argc, char **argv) {
    int nsys = (int)xapp_arg(argc, argv, 1, 8);
    size_t abytes = (size_t)nsys * N * N * sizeof(double), vbytes = (size_t)nsys * N * sizeof(double);
    double *a = (double *)xapp_alloc(abytes), *b = (double *)xapp_alloc(vbytes), *x = (double *)xapp_alloc(vbytes);
    xapp_seed(604);
    xapp_fill_double(a, (size_t)nsys * N * N, -1.0, 1.0);
    xapp_fill_double(b, (size_t)nsys * N, -1.0, 1.0);
    double *da, *db, *dx;
    XAPP_CUDA(cudaMalloc(&da, abytes)); XAPP_CUDA(cudaMalloc(&db, vbytes)); XAPP_CUDA(cudaMalloc(&dx, vbytes));
    XAPP_CUDA(cudaMemcpy(da, a, abytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(db, b, vbytes, cudaMemcpyHostToDevice));
    int blocks = (nsys + SYS_PER_BLOCK - 1) / SYS_PER_BLOCK;
    XAPP_TIME_KERNEL(best, tiny_batch_solve<<<blocks, SYS_PER_BLOCK>>>(nsys, da, db, dx));
    XAPP_CUDA(cudaMemcpy(x, dx, vbytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_double(x, (size_t)nsys * N));
    cudaFree(da); cudaFree(db); cudaFree(dx); free(a); free(b); free(x);
    return 0;
}
