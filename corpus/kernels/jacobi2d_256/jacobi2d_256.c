/* jacobi2d_256: input-size variant of corpus kernel jacobi2d (n = 256, 4000 sweeps); same code, other default args and trip counts. */
/* jacobi2d: 5-point Jacobi relaxation on an n x n grid for a number of sweeps, ping-ponging
 * between two buffers (category: stencil). The band is one sweep's (i, j) nest; the sweep
 * loop around it stays on the host (one kernel launch per sweep). */
#include "../../harness/xapp_harness.h"

/* Sweeps read `in` first, then alternate a -> b -> a ...; a and b hold in's boundary already.
 * Returns the buffer holding the last sweep. */
float *jacobi2d(long n, long sweeps, const float *in, float *a, float *b) {
    const float *src = in;
    float *dst = a;
#pragma xapp trip(4000)
    for (long t = 0; t < sweeps; t++) {
#pragma xapp parallel(2) trip(254)
        for (long i = 1; i < n - 1; i++) {
#pragma xapp trip(254)
            for (long j = 1; j < n - 1; j++) {
                dst[i * n + j] = 0.2f * (src[i * n + j] + src[(i - 1) * n + j] + src[(i + 1) * n + j]
                                         + src[i * n + j - 1] + src[i * n + j + 1]);
            }
        }
        src = dst;
        dst = dst == a ? b : a;
    }
    return (float *)src;
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 256), sweeps = xapp_arg(argc, argv, 2, 4000);
    size_t bytes = n * n * sizeof(float);
    float *in = xapp_alloc(bytes), *a = xapp_alloc(bytes), *b = xapp_alloc(bytes);
    xapp_seed(4);
    xapp_fill_float(in, n * n, 0.0f, 1.0f);
    memcpy(a, in, bytes);
    memcpy(b, in, bytes);
    float *out = NULL;
    XAPP_TIME_REGION(best, out = jacobi2d(n, sweeps, in, a, b));
    xapp_report(best, xapp_checksum_float(out, n * n));
    free(in); free(a); free(b);
    return 0;
}
