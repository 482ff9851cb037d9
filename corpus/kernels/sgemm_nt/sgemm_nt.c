/* sgemm_nt: single-precision C = A B^T with A (m x k) and B (n x k) both row-major, as in
 * cuBLAS sgemm with op(B) = transposed, or a fully connected layer's weights (category:
 * dense-linear-algebra). Every c[i][j] is the dot product of row i of A with row j of B, both
 * contiguous. Register-blocked: four rows of A share each row of B read (four dot products in
 * one k loop, which -ffast-math lets gcc vectorise), which cuts the B traffic fourfold. The band
 * is (block of 4 rows, column): m/4 x n independent iterations. m must be a multiple of 4. */
#include "../../harness/xapp_harness.h"

void sgemm_nt(long m, long n, long k, const float *restrict a, const float *restrict b, float *restrict c) {
#pragma xapp parallel(2) trip(256)
    for (long i = 0; i < m; i += 4) {
#pragma xapp trip(1024)
        for (long j = 0; j < n; j++) {
            const float *restrict a0 = a + i * k, *restrict a1 = a0 + k, *restrict a2 = a1 + k, *restrict a3 = a2 + k;
            const float *restrict bj = b + j * k;
            float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
#pragma xapp trip(1024)
            for (long p = 0; p < k; p++) {
                float x = bj[p];
                s0 += a0[p] * x;
                s1 += a1[p] * x;
                s2 += a2[p] * x;
                s3 += a3[p] * x;
            }
            c[i * n + j] = s0;
            c[(i + 1) * n + j] = s1;
            c[(i + 2) * n + j] = s2;
            c[(i + 3) * n + j] = s3;
        }
    }
}

int main(int argc, char **argv) {
    long m = xapp_arg(argc, argv, 1, 1024), n = xapp_arg(argc, argv, 2, 1024), k = xapp_arg(argc, argv, 3, 1024);
    if (m % 4) { fprintf(stderr, "sgemm_nt: m must be a multiple of 4\n"); return 2; }
    float *a = xapp_alloc(m * k * sizeof(float)), *b = xapp_alloc(n * k * sizeof(float));
    float *c = xapp_alloc(m * n * sizeof(float));
    xapp_seed(515);
    xapp_fill_float(a, m * k, -1.0f, 1.0f);
    xapp_fill_float(b, n * k, -1.0f, 1.0f);
    XAPP_TIME_REGION(best, sgemm_nt(m, n, k, a, b, c));
    xapp_report(best, xapp_checksum_float(c, m * n));
    free(a); free(b); free(c);
    return 0;
}
