/* spmv_ell, CUDA: the ELL arrays transposed to slot-major order on the host (untimed), so that the
 * threads of a warp, one per row, read consecutive words for every slot; x is gathered through the
 * read-only cache. Each row is summed in slot order, as on the C side. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define THREADS 256

/* Deterministic random sparse matrix in ELLPACK form, row-major (shared by copy with the other
 * side): n rows of width slots, row i holding a number of nonzeros uniform in [width/2, width] at
 * columns uniform over [0, n), values uniform in [0, 1); the unused slots are padding (column 0,
 * value 0), which ELL multiplies like any other slot. */
static void make_ell(long n, int width, int **col_out, float **val_out) {
    size_t slots = (size_t)n * (size_t)width;
    int *col = (int *)xapp_alloc(slots * sizeof(int));
    float *val = (float *)xapp_alloc(slots * sizeof(float));
    int *len = (int *)xapp_alloc((size_t)n * sizeof(int));
    for (long i = 0; i < n; i++) {
        len[i] = width / 2 + (int)(xapp_next() % (uint64_t)(width - width / 2 + 1));
        for (int k = 0; k < width; k++) col[(size_t)i * width + k] = k < len[i] ? (int)(xapp_next() % (uint64_t)n) : 0;
    }
    xapp_fill_float(val, slots, 0.0f, 1.0f);
    for (long i = 0; i < n; i++)
        for (int k = len[i]; k < width; k++) val[(size_t)i * width + k] = 0.0f;
    free(len);
    *col_out = col;
    *val_out = val;
}
__global__ void spmv_ell(long n, int width, const int *__restrict__ col_t, const float *__restrict__ val_t,
                         const float *__restrict__ x, float *__restrict__ y) {
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float sum = 0.0f;
    for (int k = 0; k < width; k++) {
        size_t s = (size_t)k * n + i;
        sum += val_t[s] * __ldg(&x[col_t[s]]);
    }
    y[i] = sum;
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 21);
    int width = (int)xapp_arg(argc, argv, 2, 16);
    int *col;
    float *val;
    xapp_seed(111);
    make_ell(n, width, &col, &val);
    float *x = (float *)xapp_alloc((size_t)n * sizeof(float)), *y = (float *)xapp_alloc((size_t)n * sizeof(float));
    xapp_fill_float(x, n, 0.0f, 1.0f);
    size_t slots = (size_t)n * (size_t)width;
    int *col_t = (int *)xapp_alloc(slots * sizeof(int));
    float *val_t = (float *)xapp_alloc(slots * sizeof(float));
    for (long i = 0; i < n; i++)
        for (int k = 0; k < width; k++) {
            col_t[(size_t)k * n + i] = col[(size_t)i * width + k];
            val_t[(size_t)k * n + i] = val[(size_t)i * width + k];
        }
    int *dcol;
    float *dval, *dx, *dy;
    XAPP_CUDA(cudaMalloc(&dcol, slots * sizeof(int)));
    XAPP_CUDA(cudaMalloc(&dval, slots * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&dx, n * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&dy, n * sizeof(float)));
    XAPP_CUDA(cudaMemcpy(dcol, col_t, slots * sizeof(int), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dval, val_t, slots * sizeof(float), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice));
    long blocks = (n + THREADS - 1) / THREADS;
    XAPP_TIME_KERNEL(best, spmv_ell<<<blocks, THREADS>>>(n, width, dcol, dval, dx, dy));
    XAPP_CUDA(cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(y, n));
    cudaFree(dcol); cudaFree(dval); cudaFree(dx); cudaFree(dy);
    free(col); free(val); free(col_t); free(val_t); free(x); free(y);
    return 0;
}
