/* tiny_batch_solve: solve a batch of 8 small dense linear systems A_s x_s = b_s (16 x 16, double)
 * by Gaussian elimination with partial pivoting and back substitution, one system per band
 * iteration (category: gpu-hostile: 8 threads' worth of parallelism, about 12k flops in all, so a
 * kernel launch costs more than the whole C side). */
#include "../../harness/xapp_harness.h"

#define N 16   /* unknowns per system */

/* a_in: nsys row-major N x N matrices, b_in: nsys right-hand sides, x_out: nsys solutions. */
void tiny_batch_solve(int nsys, const double *restrict a_in, const double *restrict b_in, double *restrict x_out) {
#pragma xapp parallel trip(8)
    for (int s = 0; s < nsys; s++) {
        double a[N][N + 1];   /* the augmented matrix [A | b], a working copy (inputs stay intact) */
        const double *restrict as = a_in + (size_t)s * N * N, *restrict bs = b_in + (size_t)s * N;
        for (int i = 0; i < N; i++) {
            for (int j = 0; j < N; j++) a[i][j] = as[i * N + j];
            a[i][N] = bs[i];
        }
        for (int k = 0; k < N; k++) {
            int p = k;
            double big = fabs(a[k][k]);
#pragma xapp trip(7.5)
            for (int i = k + 1; i < N; i++) {
                double v = fabs(a[i][k]);
                if (v > big) {
                    big = v;
                    p = i;
                }
            }
#pragma xapp prob(0.79)
            if (p != k) {
#pragma xapp trip(9.5)
                for (int j = k; j <= N; j++) {
                    double t = a[k][j];
                    a[k][j] = a[p][j];
                    a[p][j] = t;
                }
            }
            double inv = 1.0 / a[k][k];
#pragma xapp trip(7.5)
            for (int i = k + 1; i < N; i++) {
                double f = a[i][k] * inv;
#pragma xapp trip(11.33)
                for (int j = k + 1; j <= N; j++) a[i][j] -= f * a[k][j];
            }
        }
        double x[N];
#pragma xapp trip(16)
        for (int i = N - 1; i >= 0; i--) {
            double sum = a[i][N];
#pragma xapp trip(7.5)
            for (int j = i + 1; j < N; j++) sum -= a[i][j] * x[j];
            x[i] = sum / a[i][i];
        }
        for (int i = 0; i < N; i++) x_out[(size_t)s * N + i] = x[i];
    }
}

int main(int argc, char **argv) {
    int nsys = (int)xapp_arg(argc, argv, 1, 8);
    double *a = (double *)xapp_alloc((size_t)nsys * N * N * sizeof(double));
    double *b = (double *)xapp_alloc((size_t)nsys * N * sizeof(double)), *x = (double *)xapp_alloc((size_t)nsys * N * sizeof(double));
    xapp_seed(604);
    xapp_fill_double(a, (size_t)nsys * N * N, -1.0, 1.0);   /* general matrices: pivoting matters */
    xapp_fill_double(b, (size_t)nsys * N, -1.0, 1.0);
    XAPP_TIME_REGION(best, tiny_batch_solve(nsys, a, b, x));
    xapp_report(best, xapp_checksum_double(x, (size_t)nsys * N));
    free(a); free(b); free(x);
    return 0;
}
