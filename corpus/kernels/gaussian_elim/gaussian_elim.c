/* gaussian_elim: the forward elimination of Rodinia gaussian on a dense n x n float system A x = b
 * (diagonally dominant, so no pivoting): for each pivot row t in turn (a host loop, n-1 steps),
 * the multipliers m[i][t] = a[i][t] / a[t][t] of the rows below (Rodinia's Fan1) and the update
 * a[i][j] -= m[i][t] a[t][j], b[i] -= m[i][t] b[t] of those rows (Fan2). The parallel work shrinks
 * step by step (category: application). */
#include "../../harness/xapp_harness.h"

/* Row-oriented, as the serial code is naturally written: each row below the pivot takes its
 * multiplier and is updated along its length (unit stride, vectorised). The matrix (9 MB at the
 * default size) stays in the CPU's caches. */
void gaussian_elim(int n, float *restrict a, float *restrict b, float *restrict m) {
#pragma xapp trip(1535)
    for (int t = 0; t < n - 1; t++) {
        const float *restrict at = a + (long)t * n;
        float piv = at[t], bt = b[t];
#pragma xapp parallel(2) trip(768)
        for (int i = t + 1; i < n; i++) {
            float *restrict ai = a + (long)i * n;
            float mi = ai[t] / piv;
            m[(long)i * n + t] = mi;
#pragma xapp trip(1024)
            for (int j = t; j < n; j++) ai[j] -= mi * at[j];
            b[i] -= mi * bt;
        }
    }
}

int main(int argc, char **argv) {
    int n = (int)xapp_arg(argc, argv, 1, 1536);
    size_t cnt = (size_t)n * n, bytes = cnt * sizeof(float);
    float *a0 = (float *)xapp_alloc(bytes), *a = (float *)xapp_alloc(bytes), *m = (float *)xapp_alloc(bytes);
    float *b0 = (float *)xapp_alloc(n * sizeof(float)), *b = (float *)xapp_alloc(n * sizeof(float));
    xapp_seed(413);
    xapp_fill_float(a0, cnt, 0.0f, 1.0f);
    for (int i = 0; i < n; i++) a0[(long)i * n + i] += (float)n;   /* diagonal dominance: no pivoting needed */
    xapp_fill_float(b0, n, 0.0f, 1.0f);
    memset(m, 0, bytes);
    double best = INFINITY;
    for (int r = 0; r < xapp_repeats(); r++) {
        double t0 = xapp_now();
        memcpy(a, a0, bytes);   /* in-place elimination: restart from the input (timed on both sides) */
        memcpy(b, b0, n * sizeof(float));
        gaussian_elim(n, a, b, m);
        double t = xapp_now() - t0;
        if (t < best) best = t;
    }
    xapp_report(best, xapp_checksum_float(a, cnt) + xapp_checksum_float(m, cnt) + xapp_checksum_float(b, n));
    free(a0); free(a); free(m); free(b0); free(b);
    return 0;
}
