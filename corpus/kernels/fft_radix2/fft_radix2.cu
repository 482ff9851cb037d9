/* fft_radix2, CUDA: one launch for the bit-reversal copy (coalesced writes, gathered reads), then
 * one launch per stage with one thread per butterfly: thread t of stage h takes k = t mod h and
 * the pair (a, a + h) with a = 2 (t - k) + k, so consecutive threads touch consecutive elements
 * (coalesced) once h >= 32. Same twiddle table and butterfly arithmetic as the C side. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define THREADS 256

static void twiddles(long n, float *tw_re, float *tw_im) {
    const double pi = 3.14159265358979323846;
    tw_re[0] = 1.0f; tw_im[0] = 0.0f;
    for (long h = 1; h < n; h <<= 1)
        for (long k = 0; k < h; k++) {
            tw_re[h + k] = (float)cos(-pi * (double)k / (double)h);
            tw_im[h + k] = (float)sin(-pi * (double)k / (double)h);
        }
}

/* The low `bits` bits of i in reverse order. */
__device__ __forceinline__ unsigned reverse_bits(unsigned i, int bits) {
#ifdef __CUDA_ARCH__
    return __brev(i) >> (32 - bits);
#else   /* the CPU emulator has no __brev */
    unsigned r = 0;
    for (int b = 0; b < bits; b++) r |= ((i >> b) & 1u) << (bits - 1 - b);
    return r;
#endif
}

__global__ void bit_reverse(int logn, const float *__restrict__ in_re, const float *__restrict__ in_im,
                            float *__restrict__ re, float *__restrict__ im) {
    long i = (long)blockIdx.x * THREADS + threadIdx.x;
    if (i >= (1L << logn)) return;
    unsigned j = reverse_bits((unsigned)i, logn);
    re[i] = in_re[j];
    im[i] = in_im[j];
}

__global__ void butterflies(long n, long h, const float *__restrict__ tw_re, const float *__restrict__ tw_im,
                            float *__restrict__ re, float *__restrict__ im) {
    long t = (long)blockIdx.x * THREADS + threadIdx.x;
    if (t >= n / 2) return;
    long k = t & (h - 1);
    long a = 2 * (t - k) + k, b = a + h;
    float wr = tw_re[h + k], wi = tw_im[h + k];
    float br = re[b], bi = im[b], ar = re[a], ai = im[a];
    float tr = wr * br - wi * bi;
    float ti = wr * bi + wi * br;
    re[b] = ar - tr;
    im[b] = ai - ti;
    re[a] = ar + tr;
    im[a] = ai + ti;
}

int main(int argc, char **argv) {
    int logn = (int)xapp_arg(argc, argv, 1, 22);
    if (logn > 30) { fprintf(stderr, "fft_radix2: at most 2^30 points\n"); return 2; }
    long n = 1L << logn;
    size_t bytes = n * sizeof(float);
    float *in_re = (float *)xapp_alloc(bytes), *in_im = (float *)xapp_alloc(bytes);
    float *re = (float *)xapp_alloc(bytes), *im = (float *)xapp_alloc(bytes);
    float *tw_re = (float *)xapp_alloc(bytes), *tw_im = (float *)xapp_alloc(bytes);
    twiddles(n, tw_re, tw_im);
    xapp_seed(510);
    xapp_fill_float(in_re, n, -1.0f, 1.0f);
    xapp_fill_float(in_im, n, -1.0f, 1.0f);
    float *din_re, *din_im, *dre, *dim, *dtw_re, *dtw_im;
    XAPP_CUDA(cudaMalloc(&din_re, bytes)); XAPP_CUDA(cudaMalloc(&din_im, bytes));
    XAPP_CUDA(cudaMalloc(&dre, bytes)); XAPP_CUDA(cudaMalloc(&dim, bytes));
    XAPP_CUDA(cudaMalloc(&dtw_re, bytes)); XAPP_CUDA(cudaMalloc(&dtw_im, bytes));
    XAPP_CUDA(cudaMemcpy(din_re, in_re, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(din_im, in_im, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dtw_re, tw_re, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dtw_im, tw_im, bytes, cudaMemcpyHostToDevice));
    long copy_blocks = (n + THREADS - 1) / THREADS, fly_blocks = (n / 2 + THREADS - 1) / THREADS;
    XAPP_TIME_KERNEL(best, {
        bit_reverse<<<copy_blocks, THREADS>>>(logn, din_re, din_im, dre, dim);
        for (long h = 1; h < n; h <<= 1)
            butterflies<<<fly_blocks, THREADS>>>(n, h, dtw_re, dtw_im, dre, dim);
    });
    XAPP_CUDA(cudaMemcpy(re, dre, bytes, cudaMemcpyDeviceToHost));
    XAPP_CUDA(cudaMemcpy(im, dim, bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(re, n) + 3.0 * xapp_checksum_float(im, n));
    cudaFree(din_re); cudaFree(din_im); cudaFree(dre); cudaFree(dim); cudaFree(dtw_re); cudaFree(dtw_im);
    free(in_re); free(in_im); free(re); free(im); free(tw_re); free(tw_im);
    return 0;
}
