/* sobel: Sobel edge magnitude sqrt(gx^2 + gy^2) of a float image, interior pixels only
 * (category: stencil; a square root per pixel). */
#include "../../harness/xapp_harness.h"

void sobel(long height, long width, const float *restrict in, float *restrict out) {
#pragma xapp parallel(2) trip(6142)
    for (long y = 1; y < height - 1; y++) {
#pragma xapp trip(6142)
        for (long x = 1; x < width - 1; x++) {
            const float *p = in + y * width + x;
            float gx = (p[-width + 1] + 2.0f * p[1] + p[width + 1])
                     - (p[-width - 1] + 2.0f * p[-1] + p[width - 1]);
            float gy = (p[width - 1] + 2.0f * p[width] + p[width + 1])
                     - (p[-width - 1] + 2.0f * p[-width] + p[-width + 1]);
            out[y * width + x] = sqrtf(gx * gx + gy * gy);
        }
    }
}

int main(int argc, char **argv) {
    long height = xapp_arg(argc, argv, 1, 6144), width = xapp_arg(argc, argv, 2, 6144);
    long n = height * width;
    float *in = xapp_alloc(n * sizeof(float)), *out = xapp_alloc(n * sizeof(float));
    xapp_seed(8);
    xapp_fill_float(in, n, 0.0f, 1.0f);
    memset(out, 0, n * sizeof(float));  /* border pixels stay 0 */
    XAPP_TIME_REGION(best, sobel(height, width, in, out));
    xapp_report(best, xapp_checksum_float(out, n));
    free(in); free(out);
    return 0;
}
