/* grayscale_aos: RGB pixels stored as an array of 3-byte structs converted to float luminance
 * (category: streaming; array-of-structures input, byte loads, 2-loop band). */
#include "../../harness/xapp_harness.h"

typedef struct { unsigned char r, g, b; } rgb;

void grayscale(long height, long width, const rgb *restrict img, float *restrict gray) {
#pragma xapp parallel(2) trip(8192)
    for (long y = 0; y < height; y++) {
#pragma xapp trip(8192)
        for (long x = 0; x < width; x++) {
            rgb p = img[y * width + x];
            gray[y * width + x] = 0.299f * p.r + 0.587f * p.g + 0.114f * p.b;
        }
    }
}

int main(int argc, char **argv) {
    long height = xapp_arg(argc, argv, 1, 8192), width = xapp_arg(argc, argv, 2, 8192);
    long n = height * width;
    rgb *img = xapp_alloc(n * sizeof(rgb));
    float *gray = xapp_alloc(n * sizeof(float));
    xapp_seed(3);
    xapp_fill_uchar((unsigned char *)img, n * sizeof(rgb), 0, 255);
    XAPP_TIME_REGION(best, grayscale(height, width, img, gray));
    xapp_report(best, xapp_checksum_float(gray, n));
    free(img); free(gray);
    return 0;
}
