/* fft_batched, CUDA: a 256-thread block transforms 8 FFTs in shared memory, 32 threads (one warp)
 * per transform. The block's 512 consecutive points are loaded with coalesced reads into their
 * bit-reversed slots; each of the 6 stages has 32 butterflies, one per thread (thread t of stage h
 * takes k = t mod h and the pair a = 2 (t - k) + k, a + h), separated by barriers; the results are
 * stored with coalesced writes. Twiddles and the reversal table sit in constant memory. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define N 64
#define LOGN 6
#define PER_BLOCK 8                 /* transforms per block */
#define THREADS (PER_BLOCK * N / 2) /* 256: one thread per butterfly */

__constant__ float ctw_re[N], ctw_im[N];
__constant__ int crev[N];

static void tables(float *tw_re, float *tw_im, int *rev) {
    const double pi = 3.14159265358979323846;
    tw_re[0] = 1.0f; tw_im[0] = 0.0f;
    for (int h = 1; h < N; h <<= 1)
        for (int k = 0; k < h; k++) {
            tw_re[h + k] = (float)cos(-pi * k / h);
            tw_im[h + k] = (float)sin(-pi * k / h);
        }
    for (int i = 0; i < N; i++) {
        int r = 0;
        for (int b = 0; b < LOGN; b++) r |= ((i >> b) & 1) << (LOGN - 1 - b);
        rev[i] = r;
    }
}

__global__ void fft_batched(long batch, const float *__restrict__ in_re, const float *__restrict__ in_im,
                            float *__restrict__ out_re, float *__restrict__ out_im) {
    __shared__ float sre[PER_BLOCK][N], sim[PER_BLOCK][N];
    long first = (long)blockIdx.x * PER_BLOCK;   /* first transform of the block */
    long base = first * N;
    int count = batch - first < PER_BLOCK ? (int)(batch - first) : PER_BLOCK;
    for (int e = threadIdx.x; e < PER_BLOCK * N; e += THREADS) {
        int f = e / N, i = e % N;
        if (f < count) {
            /* point i goes to slot rev[i]: slot rev[i] receives point i, i.e. slot s gets point rev[s] */
            sre[f][crev[i]] = in_re[base + e];
            sim[f][crev[i]] = in_im[base + e];
        }
    }
    __syncthreads();
    int f = threadIdx.x / (N / 2), t = threadIdx.x % (N / 2);
    for (int h = 1; h < N; h <<= 1) {
        if (f < count) {
            int k = t & (h - 1);
            int a = 2 * (t - k) + k, b = a + h;
            float wr = ctw_re[h + k], wi = ctw_im[h + k];
            float br = sre[f][b], bi = sim[f][b], ar = sre[f][a], ai = sim[f][a];
            float tr = wr * br - wi * bi;
            float ti = wr * bi + wi * br;
            sre[f][b] = ar - tr;
            sim[f][b] = ai - ti;
            sre[f][a] = ar + tr;
            sim[f][a] = ai + ti;
        }
        __syncthreads();
    }
    for (int e = threadIdx.x; e < PER_BLOCK * N; e += THREADS) {
        int g = e / N, i = e % N;
        if (g < count) {
            out_re[base + e] = sre[g][i];
            out_im[base + e] = sim[g][i];
        }
    }
}

int main(int argc, char **argv) {
    long batch = xapp_arg(argc, argv, 1, 262144);
    size_t bytes = batch * N * sizeof(float);
    float *in_re = (float *)xapp_alloc(bytes), *in_im = (float *)xapp_alloc(bytes);
    float *out_re = (float *)xapp_alloc(bytes), *out_im = (float *)xapp_alloc(bytes);
    float tw_re[N], tw_im[N];
    int rev[N];
    tables(tw_re, tw_im, rev);
    xapp_seed(511);
    xapp_fill_float(in_re, batch * N, -1.0f, 1.0f);
    xapp_fill_float(in_im, batch * N, -1.0f, 1.0f);
    XAPP_CUDA(cudaMemcpyToSymbol(ctw_re, tw_re, sizeof(tw_re)));
    XAPP_CUDA(cudaMemcpyToSymbol(ctw_im, tw_im, sizeof(tw_im)));
    XAPP_CUDA(cudaMemcpyToSymbol(crev, rev, sizeof(rev)));
    float *din_re, *din_im, *dout_re, *dout_im;
    XAPP_CUDA(cudaMalloc(&din_re, bytes)); XAPP_CUDA(cudaMalloc(&din_im, bytes));
    XAPP_CUDA(cudaMalloc(&dout_re, bytes)); XAPP_CUDA(cudaMalloc(&dout_im, bytes));
    XAPP_CUDA(cudaMemcpy(din_re, in_re, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(din_im, in_im, bytes, cudaMemcpyHostToDevice));
    long blocks = (batch + PER_BLOCK - 1) / PER_BLOCK;
    XAPP_TIME_KERNEL(best, fft_batched<<<blocks, THREADS>>>(batch, din_re, din_im, dout_re, dout_im));
    XAPP_CUDA(cudaMemcpy(out_re, dout_re, bytes, cudaMemcpyDeviceToHost));
    XAPP_CUDA(cudaMemcpy(out_im, dout_im, bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(out_re, batch * N) + 3.0 * xapp_checksum_float(out_im, batch * N));
    cudaFree(din_re); cudaFree(din_im); cudaFree(dout_re); cudaFree(dout_im);
    free(in_re); free(in_im); free(out_re); free(out_im);
    return 0;
}
