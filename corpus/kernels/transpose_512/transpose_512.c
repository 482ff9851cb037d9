/* transpose_512: input-size variant of corpus kernel transpose (512 x 512); same code, other default args and trip counts. */
/* transpose: out = in^T for a row-major float matrix (category: dense-linear-algebra; pure data
 * movement, one side of every access is strided). The C side works in TILE x TILE tiles (the band
 * is the grid of tiles, as the GPU's thread blocks), so the lines a tile touches stay in L1. */
#include "../../harness/xapp_harness.h"

#ifndef TILE
#define TILE 32
#endif

void transpose(long rows, long cols, const float *restrict in, float *restrict out) {
#pragma xapp parallel(2) trip(16)
    for (long i0 = 0; i0 < rows; i0 += TILE) {
#pragma xapp trip(16)
        for (long j0 = 0; j0 < cols; j0 += TILE) {
            long i1 = i0 + TILE < rows ? i0 + TILE : rows, j1 = j0 + TILE < cols ? j0 + TILE : cols;
#pragma xapp trip(32)
            for (long i = i0; i < i1; i++) {
#pragma xapp trip(32)
                for (long j = j0; j < j1; j++) {
                    out[j * rows + i] = in[i * cols + j];
                }
            }
        }
    }
}

int main(int argc, char **argv) {
    long rows = xapp_arg(argc, argv, 1, 512), cols = xapp_arg(argc, argv, 2, 512);
    float *in = xapp_alloc(rows * cols * sizeof(float)), *out = xapp_alloc(rows * cols * sizeof(float));
    xapp_seed(18);
    xapp_fill_float(in, rows * cols, -1.0f, 1.0f);
    XAPP_TIME_REGION(best, transpose(rows, cols, in, out));
    xapp_report(best, xapp_checksum_float(out, rows * cols));
    free(in); free(out);
    return 0;
}
