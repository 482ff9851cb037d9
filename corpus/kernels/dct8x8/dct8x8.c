/* dct8x8: forward two-dimensional DCT-II of each 8x8 block of a float image, the JPEG transform
 * (category: spectral). With the orthonormal 8x8 DCT matrix C, a block X becomes C X C^T: a
 * row pass (each row times C^T) into an 8x8 scratch block held in L1, then a column pass. The
 * coefficients overwrite the block's place in the output image. The band is the grid of
 * blocks; the per-block loops have constant trip counts. */
#include "../../harness/xapp_harness.h"

/* c[u][x] = a(u) cos((2x + 1) u pi / 16), a(0) = sqrt(1/8), a(u > 0) = sqrt(2/8). */
static void dct_matrix(float *c) {
    const double pi = 3.14159265358979323846;
    for (int u = 0; u < 8; u++)
        for (int x = 0; x < 8; x++)
            c[u * 8 + x] = (float)((u == 0 ? sqrt(0.125) : 0.5) * cos((2 * x + 1) * u * pi / 16.0));
}

void dct8x8(long height, long width, const float *restrict in, const float *restrict c, float *restrict out) {
    long bh = height / 8, bw = width / 8;
#pragma xapp parallel(2) trip(1024)
    for (long by = 0; by < bh; by++) {
#pragma xapp trip(1024)
        for (long bx = 0; bx < bw; bx++) {
            const float *restrict blk = in + by * 8 * width + bx * 8;
            float *restrict dst = out + by * 8 * width + bx * 8;
            float tmp[8][8];
            for (int y = 0; y < 8; y++)           /* rows: tmp[y][u] = sum_x c[u][x] X[y][x] */
                for (int u = 0; u < 8; u++) {
                    float acc = 0.0f;
                    for (int x = 0; x < 8; x++) acc += c[u * 8 + x] * blk[y * width + x];
                    tmp[y][u] = acc;
                }
            for (int v = 0; v < 8; v++)           /* columns: out[v][u] = sum_y c[v][y] tmp[y][u] */
                for (int u = 0; u < 8; u++) {
                    float acc = 0.0f;
                    for (int y = 0; y < 8; y++) acc += c[v * 8 + y] * tmp[y][u];
                    dst[v * width + u] = acc;
                }
        }
    }
}

int main(int argc, char **argv) {
    long height = xapp_arg(argc, argv, 1, 8192), width = xapp_arg(argc, argv, 2, 8192);
    if (height % 8 || width % 8) { fprintf(stderr, "dct8x8: height and width must be multiples of 8\n"); return 2; }
    long n = height * width;
    float *in = xapp_alloc(n * sizeof(float)), *out = xapp_alloc(n * sizeof(float));
    float c[64];
    dct_matrix(c);
    xapp_seed(506);
    xapp_fill_float(in, n, 0.0f, 255.0f);
    XAPP_TIME_REGION(best, dct8x8(height, width, in, c, out));
    xapp_report(best, xapp_checksum_float(out, n));
    free(in); free(out);
    return 0;
}
