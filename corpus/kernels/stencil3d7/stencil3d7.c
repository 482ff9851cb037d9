/* stencil3d7: 7-point stencil on an n^3 float grid for a few sweeps (category: stencil).
 * The band is the (j, i) plane; the k loop around it is the sequential plane sweep that a
 * GPU port walks inside each thread (or launches plane by plane). */
#include "../../harness/xapp_harness.h"

#define C0 0.4f
#define C1 0.1f

float *stencil3d7(long n, long sweeps, const float *in, float *a, float *b) {
    const float *src = in;
    float *dst = a;
    long nn = n * n;
#pragma xapp trip(8)
    for (long t = 0; t < sweeps; t++) {
#pragma xapp trip(254)
        for (long k = 1; k < n - 1; k++) {
#pragma xapp parallel(2) trip(254)
            for (long j = 1; j < n - 1; j++) {
#pragma xapp trip(254)
                for (long i = 1; i < n - 1; i++) {
                    long c = k * nn + j * n + i;
                    dst[c] = C0 * src[c] + C1 * (src[c - nn] + src[c + nn] + src[c - n] + src[c + n]
                                                 + src[c - 1] + src[c + 1]);
                }
            }
        }
        src = dst;
        dst = dst == a ? b : a;
    }
    return (float *)src;
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 256), sweeps = xapp_arg(argc, argv, 2, 8);
    size_t bytes = n * n * n * sizeof(float);
    float *in = xapp_alloc(bytes), *a = xapp_alloc(bytes), *b = xapp_alloc(bytes);
    xapp_seed(5);
    xapp_fill_float(in, n * n * n, 0.0f, 1.0f);
    memcpy(a, in, bytes);  /* the boundary stays fixed: sweeps write interior points only */
    memcpy(b, in, bytes);
    float *out = NULL;
    XAPP_TIME_REGION(best, out = stencil3d7(n, sweeps, in, a, b));
    xapp_report(best, xapp_checksum_float(out, n * n * n));
    free(in); free(a); free(b);
    return 0;
}
