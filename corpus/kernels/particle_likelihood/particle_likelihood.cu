/* particle_likelihood, CUDA: one thread per particle; the disk offsets sit in constant memory (every
 * thread of a warp reads the same offset, a broadcast), the image pixels are gathered through the
 * read-only cache (a 1 MB image stays in L2); the positions, weights and outputs are coalesced. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define MAX_OFS 121

__constant__ int c_dx[MAX_OFS];
__constant__ int c_dy[MAX_OFS];

__global__ void likelihood(long np, int nofs, int rows, int cols, const float *__restrict__ px,
                           const float *__restrict__ py, const unsigned char *__restrict__ img,
                           const double *__restrict__ w0, double *__restrict__ lik, double *__restrict__ w) {
    long p = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= np) return;
    int cx = (int)floorf(px[p] + 0.5f), cy = (int)floorf(py[p] + 0.5f);
    int sum = 0;
    for (int k = 0; k < nofs; k++) {
        int x = cx + c_dx[k], y = cy + c_dy[k];
        x = x < 0 ? 0 : (x >= cols ? cols - 1 : x);
        y = y < 0 ? 0 : (y >= rows ? rows - 1 : y);
        int v = __ldg(&img[(long)y * cols + x]);
        sum += (v - 100) * (v - 100) - (v - 228) * (v - 228);
    }
    double l = sum / (50.0 * nofs);
    lik[p] = l;
    w[p] = w0[p] * exp(l);
}

/* The offsets of a disk of radius r, row by row (the same code on both sides); returns their number. */
static int disk_offsets(int r, int *dx, int *dy) {
    int n = 0;
    for (int y = -r; y <= r; y++)
        for (int x = -r; x <= r; x++)
            if (x * x + y * y <= r * r) {
                dx[n] = x;
                dy[n] = y;
                n++;
            }
    return n;
}

int main(int argc, char **argv) {
    long np = xapp_arg(argc, argv, 1, 524288);
    int rows = (int)xapp_arg(argc, argv, 2, 1024), cols = (int)xapp_arg(argc, argv, 3, 1024);
    int dx[MAX_OFS], dy[MAX_OFS];
    int nofs = disk_offsets(5, dx, dy);
    float *px = (float *)xapp_alloc(np * sizeof(float)), *py = (float *)xapp_alloc(np * sizeof(float));
    unsigned char *img = (unsigned char *)xapp_alloc((size_t)rows * cols);
    double *w0 = (double *)xapp_alloc(np * sizeof(double)), *lik = (double *)xapp_alloc(np * sizeof(double));
    double *w = (double *)xapp_alloc(np * sizeof(double));
    xapp_seed(409);
    xapp_fill_uchar(img, (size_t)rows * cols, 150, 178);
    xapp_fill_float(px, np, 0.0f, (float)cols);
    xapp_fill_float(py, np, 0.0f, (float)rows);
    xapp_fill_double(w0, np, 0.5, 1.5);
    float *dpx, *dpy;
    unsigned char *dimg;
    double *dw0, *dlik, *dw;
    XAPP_CUDA(cudaMalloc(&dpx, np * sizeof(float))); XAPP_CUDA(cudaMalloc(&dpy, np * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&dimg, (size_t)rows * cols)); XAPP_CUDA(cudaMalloc(&dw0, np * sizeof(double)));
    XAPP_CUDA(cudaMalloc(&dlik, np * sizeof(double))); XAPP_CUDA(cudaMalloc(&dw, np * sizeof(double)));
    XAPP_CUDA(cudaMemcpy(dpx, px, np * sizeof(float), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dpy, py, np * sizeof(float), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dimg, img, (size_t)rows * cols, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dw0, w0, np * sizeof(double), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpyToSymbol(c_dx, dx, nofs * sizeof(int)));
    XAPP_CUDA(cudaMemcpyToSymbol(c_dy, dy, nofs * sizeof(int)));
    int threads = 256;
    long blocks = (np + threads - 1) / threads;
    XAPP_TIME_KERNEL(best, likelihood<<<blocks, threads>>>(np, nofs, rows, cols, dpx, dpy, dimg, dw0, dlik, dw));
    XAPP_CUDA(cudaMemcpy(lik, dlik, np * sizeof(double), cudaMemcpyDeviceToHost));
    XAPP_CUDA(cudaMemcpy(w, dw, np * sizeof(double), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_double(w, np) + xapp_checksum_double(lik, np));
    cudaFree(dpx); cudaFree(dpy); cudaFree(dimg); cudaFree(dw0); cudaFree(dlik); cudaFree(dw);
    free(px); free(py); free(img); free(w0); free(lik); free(w);
    return 0;
}
