/* backprop_forward, CUDA: a 256-thread block covers 256 / n_hid input rows at a time, thread t taking
 * hidden unit t % n_hid of row t / n_hid, so a warp reads contiguous weights; each thread accumulates
 * over a grid-stride range of rows in double, the block folds its rows in shared memory into one
 * partial sum per hidden unit, and a second one-block launch adds the block partials, the bias, and
 * applies the sigmoid (deterministic order). */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define THREADS 256
#define MAX_BLOCKS 1024

/* Sum of v over the rows of the block (threads t, t + n_hid, t + 2 n_hid, ...): valid in row 0. */
__device__ double fold_rows(double v, int n_hid) {
    __shared__ double red[THREADS];
    red[threadIdx.x] = v;
    __syncthreads();
    int r = threadIdx.x / n_hid;
    for (int s = THREADS / n_hid / 2; s > 0; s >>= 1) {
        if (r < s) red[threadIdx.x] += red[threadIdx.x + s * n_hid];
        __syncthreads();
    }
    return red[threadIdx.x];
}

__global__ void partial_sums(long n_in, int n_hid, const float *__restrict__ in, const float *__restrict__ w,
                             double *__restrict__ partials) {
    int j = threadIdx.x % n_hid, r = threadIdx.x / n_hid, rows = THREADS / n_hid;
    double acc = 0.0;
    for (long i = (long)blockIdx.x * rows + r; i < n_in; i += (long)gridDim.x * rows)
        acc += (double)w[i * n_hid + j] * (double)in[i];
    acc = fold_rows(acc, n_hid);
    if (r == 0) partials[(long)blockIdx.x * n_hid + j] = acc;
}

__global__ void finish(int blocks, int n_hid, const double *__restrict__ partials, const float *__restrict__ bias,
                       float *__restrict__ out) {
    int j = threadIdx.x % n_hid, r = threadIdx.x / n_hid, rows = THREADS / n_hid;
    double acc = 0.0;
    for (int b = r; b < blocks; b += rows) acc += partials[(long)b * n_hid + j];
    acc = fold_rows(acc, n_hid);
    if (r == 0) out[j] = 1.0f / (1.0f + expf(-(float)((double)bias[j] + acc)));
}

int main(int argc, char **argv) {
    long n_in = xapp_arg(argc, argv, 1, 6291456);
    int n_hid = (int)xapp_arg(argc, argv, 2, 16);
    if (THREADS % n_hid != 0) { fprintf(stderr, "n_hid must divide %d\n", THREADS); return 2; }
    size_t wbytes = (size_t)n_in * n_hid * sizeof(float);
    float *in = (float *)xapp_alloc(n_in * sizeof(float)), *w = (float *)xapp_alloc(wbytes);
    float *bias = (float *)xapp_alloc(n_hid * sizeof(float)), *out = (float *)xapp_alloc(n_hid * sizeof(float));
    xapp_seed(401);
    xapp_fill_float(in, n_in, 0.0f, 1.0f);
    xapp_fill_float(w, (size_t)n_in * n_hid, -0.002f, 0.002f);
    xapp_fill_float(bias, n_hid, -1.0f, 1.0f);
    int rows = THREADS / n_hid;
    long wanted = (n_in + rows * 16L - 1) / (rows * 16L);   /* at least 16 rows per thread */
    int blocks = (int)(wanted < MAX_BLOCKS ? wanted : MAX_BLOCKS);
    float *din, *dw, *dbias, *dout;
    double *dpartials;
    XAPP_CUDA(cudaMalloc(&din, n_in * sizeof(float))); XAPP_CUDA(cudaMalloc(&dw, wbytes));
    XAPP_CUDA(cudaMalloc(&dbias, n_hid * sizeof(float))); XAPP_CUDA(cudaMalloc(&dout, n_hid * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&dpartials, (size_t)blocks * n_hid * sizeof(double)));
    XAPP_CUDA(cudaMemcpy(din, in, n_in * sizeof(float), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dw, w, wbytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dbias, bias, n_hid * sizeof(float), cudaMemcpyHostToDevice));
    XAPP_TIME_KERNEL(best, partial_sums<<<blocks, THREADS>>>(n_in, n_hid, din, dw, dpartials);
                           finish<<<1, THREADS>>>(blocks, n_hid, dpartials, dbias, dout));
    XAPP_CUDA(cudaMemcpy(out, dout, n_hid * sizeof(float), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(out, n_hid));
    cudaFree(din); cudaFree(dw); cudaFree(dbias); cudaFree(dout); cudaFree(dpartials);
    free(in); free(w); free(bias); free(out);
    return 0;
}
