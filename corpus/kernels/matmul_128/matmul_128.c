/* matmul_128: input-size variant of corpus kernel matmul (n = 128); same code, other default args and trip counts. */
/* matmul: square single-precision matrix product C = A B in i-k-j order (category:
 * dense-linear-algebra): row i of C accumulates a[i][k] * (row k of B), so the inner loop walks
 * rows of B and C contiguously (and vectorises); every c[i][j] still sums its products in
 * ascending k, as in the textbook i-j-k order. The band is the row loop. */
#include "../../harness/xapp_harness.h"

void matmul(long n, const float *restrict a, const float *restrict b, float *restrict c) {
#pragma xapp parallel trip(128)
    for (long i = 0; i < n; i++) {
        float *restrict ci = c + i * n;
        const float *restrict ai = a + i * n;
#pragma xapp trip(128)
        for (long j = 0; j < n; j++) ci[j] = 0.0f;
#pragma xapp trip(128)
        for (long k = 0; k < n; k++) {
            float aik = ai[k];
            const float *restrict bk = b + k * n;
#pragma xapp trip(128)
            for (long j = 0; j < n; j++) ci[j] += aik * bk[j];
        }
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 128);
    float *a = xapp_alloc(n * n * sizeof(float)), *b = xapp_alloc(n * n * sizeof(float));
    float *c = xapp_alloc(n * n * sizeof(float));
    xapp_seed(17);
    xapp_fill_float(a, n * n, -1.0f, 1.0f);
    xapp_fill_float(b, n * n, -1.0f, 1.0f);
    XAPP_TIME_REGION(best, matmul(n, a, b, c));
    xapp_report(best, xapp_checksum_float(c, n * n));
    free(a); free(b); free(c);
    return 0;
}
