/* fft_radix2: forward complex FFT of n = 2^logn points by the iterative radix-2
 * decimation-in-time algorithm (category: spectral). The input is first copied in bit-reversed
 * order, then log2(n) butterfly stages run one after the other: stage h (h = 1, 2, 4, ..., n/2)
 * combines pairs (a, a + h) with the twiddle w_h^k = exp(-i pi k / h). The stage loop stays on
 * the host (one kernel launch per stage on the GPU); within a stage all n/2 butterflies are
 * independent: the band is the group loop and the butterfly loop inside it (n/(2h) groups of h
 * butterflies, n/2 per stage; the pragmas give the mean trip counts per entry over the stages).
 * Split real/imaginary arrays; the twiddles of stage h are stored contiguously at [h, 2h). */
#include "../../harness/xapp_harness.h"

/* tw[h + k] = exp(-i pi k / h) for h = 1, 2, ..., n/2 and 0 <= k < h (tw[0] unused). */
static void twiddles(long n, float *tw_re, float *tw_im) {
    const double pi = 3.14159265358979323846;
    tw_re[0] = 1.0f; tw_im[0] = 0.0f;
    for (long h = 1; h < n; h <<= 1)
        for (long k = 0; k < h; k++) {
            tw_re[h + k] = (float)cos(-pi * (double)k / (double)h);
            tw_im[h + k] = (float)sin(-pi * (double)k / (double)h);
        }
}

void fft_radix2(int logn, const float *restrict in_re, const float *restrict in_im, const float *restrict tw_re,
                const float *restrict tw_im, float *restrict re, float *restrict im) {
    long n = 1L << logn;
    /* bit-reversal permutation, with the reversed index j kept by a reversed-carry increment */
    for (long i = 0, j = 0; i < n; i++) {
        re[i] = in_re[j];
        im[i] = in_im[j];
        long bit = n >> 1;
        while (j & bit) { j ^= bit; bit >>= 1; }
        j |= bit;
    }
#pragma xapp trip(22)
    for (long h = 1; h < n; h <<= 1) {
        const float *restrict wr = tw_re + h, *restrict wi = tw_im + h;
#pragma xapp parallel(2) trip(190650)
        for (long g = 0; g < n; g += 2 * h) {
#pragma xapp trip(11)
            for (long k = 0; k < h; k++) {
                long a = g + k, b = a + h;
                float tr = wr[k] * re[b] - wi[k] * im[b];
                float ti = wr[k] * im[b] + wi[k] * re[b];
                re[b] = re[a] - tr;
                im[b] = im[a] - ti;
                re[a] += tr;
                im[a] += ti;
            }
        }
    }
}

int main(int argc, char **argv) {
    int logn = (int)xapp_arg(argc, argv, 1, 22);
    if (logn > 30) { fprintf(stderr, "fft_radix2: at most 2^30 points\n"); return 2; }
    long n = 1L << logn;
    size_t bytes = n * sizeof(float);
    float *in_re = xapp_alloc(bytes), *in_im = xapp_alloc(bytes), *re = xapp_alloc(bytes), *im = xapp_alloc(bytes);
    float *tw_re = xapp_alloc(bytes), *tw_im = xapp_alloc(bytes);
    twiddles(n, tw_re, tw_im);
    xapp_seed(510);
    xapp_fill_float(in_re, n, -1.0f, 1.0f);
    xapp_fill_float(in_im, n, -1.0f, 1.0f);
    XAPP_TIME_REGION(best, fft_radix2(logn, in_re, in_im, tw_re, tw_im, re, im));
    xapp_report(best, xapp_checksum_float(re, n) + 3.0 * xapp_checksum_float(im, n));
    free(in_re); free(in_im); free(re); free(im); free(tw_re); free(tw_im);
    return 0;
}
