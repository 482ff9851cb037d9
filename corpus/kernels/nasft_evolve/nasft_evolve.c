/* nasft_evolve: the "evolve" step of NAS FT, which advances the heat equation in Fourier space by
 * multiplying every element of a 3-D double-complex array by its exponential decay factor
 * exp(-4 alpha pi^2 (i'^2 + j'^2 + k'^2)) (i', j', k' the signed wave numbers), once per time
 * step (category: spectral). As in NPB 3, the factors (the "twiddle" array) are computed once
 * before the time steps; each step then streams the array through memory (two multiplications
 * per 40 bytes moved). The time-step loop stays on the host (one launch per step); every step
 * reads the previous step's array and writes the other buffer, the first reads the input. */
#include "../../harness/xapp_harness.h"

/* twiddle[(k ny + j) nx + i] = exp(-4 alpha pi^2 (i'^2 + j'^2 + k'^2)), as NPB's compute_indexmap. */
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

typedef struct { double re, im; } dcomplex;   /* as NPB's C versions */

/* Returns the buffer holding the last step. */
dcomplex *nasft_evolve(long n, int steps, const dcomplex *restrict u0, const double *restrict tw, dcomplex *a,
                       dcomplex *b) {
    const dcomplex *src = u0;
    dcomplex *dst = a;
#pragma xapp trip(6)
    for (int t = 0; t < steps; t++) {
        const dcomplex *restrict s = src;
        dcomplex *restrict d = dst;
#pragma xapp parallel trip(8388608)
        for (long e = 0; e < n; e++) {
            d[e].re = s[e].re * tw[e];
            d[e].im = s[e].im * tw[e];
        }
        src = dst;
        dst = dst == a ? b : a;
    }
    return (dcomplex *)src;
}

int main(int argc, char **argv) {
    int nx = (int)xapp_arg(argc, argv, 1, 256), ny = (int)xapp_arg(argc, argv, 2, 256);
    int nz = (int)xapp_arg(argc, argv, 3, 128), steps = (int)xapp_arg(argc, argv, 4, 6);
    long n = (long)nx * ny * nz;
    dcomplex *u0 = xapp_alloc(n * sizeof(dcomplex)), *a = xapp_alloc(n * sizeof(dcomplex));
    dcomplex *b = xapp_alloc(n * sizeof(dcomplex));
    double *tw = xapp_alloc(n * sizeof(double));
    decay_factors(nx, ny, nz, tw);
    xapp_seed(512);
    xapp_fill_double((double *)u0, 2 * n, -1.0, 1.0);   /* re, im interleaved */
    memset(a, 0, n * sizeof(dcomplex));   /* touch the buffers once, outside the timing */
    memset(b, 0, n * sizeof(dcomplex));
    dcomplex *out = NULL;
    XAPP_TIME_REGION(best, out = nasft_evolve(n, steps, u0, tw, a, b));
    xapp_report(best, xapp_checksum_double((const double *)out, 2 * n));
    free(u0); free(tw); free(a); free(b);
    return 0;
}
