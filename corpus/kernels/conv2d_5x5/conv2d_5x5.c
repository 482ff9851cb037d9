/* conv2d_5x5: 2-D correlation of a float image with a general 5x5 filter, "valid" region only:
 * out is (height-4) x (width-4), out[y][x] = sum over dy, dx of f[dy][dx] * in[y+dy][x+dx]
 * (category: stencil; 25 taps per pixel, each input pixel read by 25 outputs). The tap loops
 * have constant trip counts: gcc unrolls them and vectorises along x. */
#include "../../harness/xapp_harness.h"

void conv2d_5x5(long height, long width, const float *restrict in, const float *restrict f, float *restrict out) {
    long oh = height - 4, ow = width - 4;
#pragma xapp parallel(2) trip(8188)
    for (long y = 0; y < oh; y++) {
#pragma xapp trip(8188)
        for (long x = 0; x < ow; x++) {
            float acc = 0.0f;
            for (int dy = 0; dy < 5; dy++)
                for (int dx = 0; dx < 5; dx++)
                    acc += f[dy * 5 + dx] * in[(y + dy) * width + x + dx];
            out[y * ow + x] = acc;
        }
    }
}

int main(int argc, char **argv) {
    long height = xapp_arg(argc, argv, 1, 8192), width = xapp_arg(argc, argv, 2, 8192);
    if (height < 5 || width < 5) { fprintf(stderr, "conv2d_5x5: the image must be at least 5x5\n"); return 2; }
    long oh = height - 4, ow = width - 4;
    float *in = xapp_alloc(height * width * sizeof(float)), *out = xapp_alloc(oh * ow * sizeof(float));
    float f[25];
    xapp_seed(504);
    xapp_fill_float(f, 25, -1.0f, 1.0f);
    xapp_fill_float(in, height * width, 0.0f, 1.0f);
    XAPP_TIME_REGION(best, conv2d_5x5(height, width, in, f, out));
    xapp_report(best, xapp_checksum_float(out, oh * ow));
    free(in); free(out);
    return 0;
}
