/* fft_batched: many independent 64-point complex FFTs (forward, radix-2 decimation in time), as
 * in batched signal processing (category: spectral). Each transform loads its 64 points in
 * bit-reversed order into a local array (L1-resident), runs the 6 butterfly stages there and
 * stores the result: the band is the batch loop, 192 butterflies of work per iteration, no
 * launches between stages. Split real/imaginary arrays; stage h's twiddles sit at [h, 2h). */
#include "../../harness/xapp_harness.h"

#define N 64
#define LOGN 6

/* tw[h + k] = exp(-i pi k / h) for h = 1, 2, ..., 32, 0 <= k < h; rev[i]: i's 6 bits reversed. */
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

void fft_batched(long batch, const float *restrict in_re, const float *restrict in_im, const float *restrict tw_re,
                 const float *restrict tw_im, const int *restrict rev, float *restrict out_re, float *restrict out_im) {
#pragma xapp parallel trip(262144)
    for (long f = 0; f < batch; f++) {
        const float *restrict xr = in_re + f * N, *restrict xi = in_im + f * N;
        float re[N], im[N];
        for (int i = 0; i < N; i++) {
            re[i] = xr[rev[i]];
            im[i] = xi[rev[i]];
        }
#pragma xapp trip(6)
        for (int h = 1; h < N; h <<= 1) {
#pragma xapp trip(10.5)
            for (int g = 0; g < N; g += 2 * h) {
#pragma xapp trip(3.05)
                for (int k = 0; k < h; k++) {
                    int a = g + k, b = a + h;
                    float wr = tw_re[h + k], wi = tw_im[h + k];
                    float tr = wr * re[b] - wi * im[b];
                    float ti = wr * im[b] + wi * re[b];
                    re[b] = re[a] - tr;
                    im[b] = im[a] - ti;
                    re[a] += tr;
                    im[a] += ti;
                }
            }
        }
        float *restrict yr = out_re + f * N, *restrict yi = out_im + f * N;
        for (int i = 0; i < N; i++) {
            yr[i] = re[i];
            yi[i] = im[i];
        }
    }
}

int main(int argc, char **argv) {
    long batch = xapp_arg(argc, argv, 1, 262144);
    size_t bytes = batch * N * sizeof(float);
    float *in_re = xapp_alloc(bytes), *in_im = xapp_alloc(bytes), *out_re = xapp_alloc(bytes), *out_im = xapp_alloc(bytes);
    float tw_re[N], tw_im[N];
    int rev[N];
    tables(tw_re, tw_im, rev);
    xapp_seed(511);
    xapp_fill_float(in_re, batch * N, -1.0f, 1.0f);
    xapp_fill_float(in_im, batch * N, -1.0f, 1.0f);
    XAPP_TIME_REGION(best, fft_batched(batch, in_re, in_im, tw_re, tw_im, rev, out_re, out_im));
    xapp_report(best, xapp_checksum_float(out_re, batch * N) + 3.0 * xapp_checksum_float(out_im, batch * N));
    free(in_re); free(in_im); free(out_re); free(out_im);
    return 0;
}
