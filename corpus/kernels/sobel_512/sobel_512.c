/* sobel_512: input-size variant of corpus kernel sobel (512 x 512); same code, other default args and trip counts. */
/* sobel: Sobel edge magnitude sqrt(gx^2 + gy^2) of a float image, interior pixels only
 * (category: stencil; a square root per pixel). */
#include "../../harness/xapp_harness.h"

void sobel(long height, long width, const float *restrict in, float *restrict out) {
#pragma xapp parallel(2) trip(510)
    for (long y = 1; y < height - 1; y++) {
        const float *restrict up = in + (y - 1) * width, *restrict mid = in + y * width,
                    *restrict down = in + (y + 1) * width;
        float *restrict o = out + y * width;
#pragma xapp trip(510)
        for (long x = 1; x < width - 1; x++) {
            float gx = (up[x + 1] + 2.0f * mid[x + 1] + down[x + 1])
                     - (up[x - 1] + 2.0f * mid[x - 1] + down[x - 1]);
            float gy = (down[x - 1] + 2.0f * down[x] + down[x + 1])
                     - (up[x - 1] + 2.0f * up[x] + up[x + 1]);
            o[x] = sqrtf(gx * gx + gy * gy);
        }
    }
}

int main(int argc, char **argv) {
    long height = xapp_arg(argc, argv, 1, 512), width = xapp_arg(argc, argv, 2, 512);
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
