/* matmul: square single-precision matrix product C = A B, textbook i-j-k order (category:
 * dense-linear-algebra; B is walked down its columns in the inner loop). */
#include "../../harness/xapp_harness.h"

void matmul(long n, const float *a, const float *b, float *c) {
#pragma xapp parallel(2) trip(512)
    for (long i = 0; i < n; i++) {
#pragma xapp trip(512)
        for (long j = 0; j < n; j++) {
            float sum = 0.0f;
#pragma xapp trip(512)
            for (long k = 0; k < n; k++) {
                sum += a[i * n + k] * b[k * n + j];
            }
            c[i * n + j] = sum;
        }
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 512);
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
