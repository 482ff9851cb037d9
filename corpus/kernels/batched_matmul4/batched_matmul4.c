/* batched_matmul4: many independent 4x4 float matrix products C[b] = A[b] B[b] (category:
 * dense-linear-algebra; tiny fixed-trip inner loops, one matrix per band iteration). */
#include "../../harness/xapp_harness.h"

void batched_matmul4(long batch, const float *restrict a, const float *restrict b, float *restrict c) {
#pragma xapp parallel trip(3145728)
    for (long m = 0; m < batch; m++) {
        const float *restrict am = a + m * 16, *restrict bm = b + m * 16;
        for (int r = 0; r < 4; r++) {
            for (int col = 0; col < 4; col++) {
                float sum = 0.0f;
                for (int k = 0; k < 4; k++) sum += am[r * 4 + k] * bm[k * 4 + col];
                c[m * 16 + r * 4 + col] = sum;
            }
        }
    }
}

int main(int argc, char **argv) {
    long batch = xapp_arg(argc, argv, 1, 3L << 20);
    float *a = xapp_alloc(batch * 16 * sizeof(float)), *b = xapp_alloc(batch * 16 * sizeof(float));
    float *c = xapp_alloc(batch * 16 * sizeof(float));
    xapp_seed(20);
    xapp_fill_float(a, batch * 16, 0.0f, 1.0f);
    xapp_fill_float(b, batch * 16, 0.0f, 1.0f);
    XAPP_TIME_REGION(best, batched_matmul4(batch, a, b, c));
    xapp_report(best, xapp_checksum_float(c, batch * 16));
    free(a); free(b); free(c);
    return 0;
}
