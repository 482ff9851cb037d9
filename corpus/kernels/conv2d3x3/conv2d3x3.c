/* conv2d3x3: 2-D convolution of a float image with a 3x3 filter, interior pixels only
 * (category: stencil; constant-trip inner loops). */
#include "../../harness/xapp_harness.h"

void conv2d3x3(long height, long width, const float *restrict in, const float *restrict filter, float *restrict out) {
#pragma xapp parallel(2) trip(8190)
    for (long y = 1; y < height - 1; y++) {
#pragma xapp trip(8190)
        for (long x = 1; x < width - 1; x++) {
            float acc = 0.0f;
            for (int dy = 0; dy < 3; dy++) {
                for (int dx = 0; dx < 3; dx++) {
                    acc += filter[dy * 3 + dx] * in[(y + dy - 1) * width + (x + dx - 1)];
                }
            }
            out[y * width + x] = acc;
        }
    }
}

int main(int argc, char **argv) {
    long height = xapp_arg(argc, argv, 1, 8192), width = xapp_arg(argc, argv, 2, 8192);
    long n = height * width;
    float *in = xapp_alloc(n * sizeof(float)), *out = xapp_alloc(n * sizeof(float));
    float filter[9];
    xapp_seed(7);
    xapp_fill_float(filter, 9, -1.0f, 1.0f);
    xapp_fill_float(in, n, 0.0f, 1.0f);
    memset(out, 0, n * sizeof(float));  /* border pixels stay 0 */
    XAPP_TIME_REGION(best, conv2d3x3(height, width, in, filter, out));
    xapp_report(best, xapp_checksum_float(out, n));
    free(in); free(out);
    return 0;
}
