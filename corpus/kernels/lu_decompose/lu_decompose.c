/* lu_decompose: in-place right-looking LU factorisation without pivoting of a diagonally dominant
 * n x n matrix (double). Step k is serial; within a step the rows below the pivot update
 * independently, a shrinking amount of work per step: many small parallel phases
 * (category: gpu-hostile). On return a holds L (unit diagonal, below) and U (on and above). */
#include "../../harness/xapp_harness.h"

#ifndef KB
#define KB 16   /* pivots applied per pass over the trailing rows */
#endif

/* Step k of the elimination on row i (i > k): l = a[i][k] / a[k][k], a[i][j] -= l a[k][j] for j > k. */
static inline void eliminate(int n, int k, double *restrict ai, const double *restrict ak) {
    double l = ai[k] / ak[k];
    ai[k] = l;
#pragma xapp trip(512)
    for (int j = k + 1; j < n; j++) ai[j] -= l * ak[j];
}

/* Blocked right-looking order: the pivots are taken KB at a time; the block's own rows are
 * eliminated first, in order (they are the next pivot rows), then every row below applies the
 * KB pivots in one pass while it sits in L1. Each element receives the same updates, in the
 * same (ascending k) order, as in the step-by-step algorithm: the result is identical. */
void lu_decompose(int n, double *a) {
#pragma xapp trip(64)
    for (int kb = 0; kb < n - 1; kb += KB) {
        int ke = kb + KB < n - 1 ? kb + KB : n - 1;   /* pivots kb .. ke-1 */
        for (int i = kb + 1; i < ke; i++)              /* the block's rows, serial */
            for (int k = kb; k < i; k++) eliminate(n, k, a + (long)i * n, a + (long)k * n);
#pragma xapp parallel trip(512)
        for (int i = ke; i < n; i++) {
            double *ai = a + (long)i * n;
#pragma xapp trip(16)
            for (int k = kb; k < ke; k++) eliminate(n, k, ai, a + (long)k * n);
        }
    }
}

int main(int argc, char **argv) {
    int n = (int)xapp_arg(argc, argv, 1, 1024);
    size_t bytes = (size_t)n * n * sizeof(double);
    double *a0 = (double *)xapp_alloc(bytes), *a = (double *)xapp_alloc(bytes);
    xapp_seed(27);
    xapp_fill_double(a0, (size_t)n * n, 0.0, 1.0);
    for (int i = 0; i < n; i++) a0[(long)i * n + i] += n;   /* diagonal dominance: no pivoting needed */
    double best = INFINITY;
    for (int r = 0; r < xapp_repeats(); r++) {
        double t0 = xapp_now();
        memcpy(a, a0, bytes);   /* in-place factorisation: restart from the input (timed on both sides) */
        lu_decompose(n, a);
        double t = xapp_now() - t0;
        if (t < best) best = t;
    }
    xapp_report(best, xapp_checksum_double(a, (size_t)n * n));
    free(a0); free(a);
    return 0;
}
