/* lud_block_diag: the diagonal-block step of a blocked LU factorisation (Rodinia lud's lud_diagonal),
 * on a chain of 32 x 32 float blocks: block kb is first coupled to its predecessor (its diagonal is
 * shifted by half of the previous block's pivots, so every factorisation needs the one before), then
 * factored in place without pivoting (L below, U on and above the diagonal). Within a block the 31
 * elimination steps are serial and each updates a shrinking (31-k) x (31-k) trailing square: a chain
 * of tiny parallel phases, at most 31 x 31 independent updates each (category: gpu-hostile). */
#include "../../harness/xapp_harness.h"

#define BS 32          /* block order */
#define SHIFT 0.5f     /* coupling: d[i][i] += SHIFT * previous block's u[i][i] */

/* Block kb is copied from in to out (4 KB, it stays in L1) and factored there. */
void lud_block_diag(int nblk, const float *restrict in, float *restrict out) {
#pragma xapp trip(16384)
    for (int kb = 0; kb < nblk; kb++) {
        float *restrict d = out + (long)kb * BS * BS;
        const float *restrict a = in + (long)kb * BS * BS;
        for (int e = 0; e < BS * BS; e++) d[e] = a[e];
        if (kb > 0) {
            const float *restrict u = d - BS * BS;
            for (int i = 0; i < BS; i++) d[i * BS + i] += SHIFT * u[i * BS + i];
        }
        for (int k = 0; k < BS - 1; k++) {
            const float *restrict dk = d + k * BS;
#pragma xapp parallel(2) trip(16)
            for (int i = k + 1; i < BS; i++) {
                float *restrict di = d + i * BS;
                float l = di[k] / dk[k];
                di[k] = l;
#pragma xapp trip(21)
                for (int j = k + 1; j < BS; j++) di[j] -= l * dk[j];
            }
        }
    }
}

int main(int argc, char **argv) {
    int nblk = (int)xapp_arg(argc, argv, 1, 16384);
    size_t cnt = (size_t)nblk * BS * BS, bytes = cnt * sizeof(float);
    float *blk0 = (float *)xapp_alloc(bytes), *blk = (float *)xapp_alloc(bytes);
    xapp_seed(415);
    xapp_fill_float(blk0, cnt, -1.0f, 1.0f);
    for (long b = 0; b < nblk; b++)
        for (int i = 0; i < BS; i++) blk0[b * BS * BS + i * BS + i] += (float)BS;   /* diagonally dominant */
    XAPP_TIME_REGION(best, lud_block_diag(nblk, blk0, blk));
    xapp_report(best, xapp_checksum_float(blk, cnt));
    free(blk0); free(blk);
    return 0;
}
