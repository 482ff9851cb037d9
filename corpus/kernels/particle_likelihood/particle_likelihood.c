/* particle_likelihood: the likelihood step of Rodinia's particle filter: every particle looks at
 * the pixels of a disk of radius 5 (81 offsets) around its rounded position in an 8-bit image
 * (clamped at the image border), scores each pixel by how much more it looks like the tracked object
 * (intensity 228) than the background (100), ((I - 100)^2 - (I - 228)^2) / 50, averages the scores
 * and multiplies its weight by exp(likelihood). The integer scores are summed exactly and divided
 * once (Rodinia divides every score; the sum is the same up to rounding). Gathers from a small image at scattered positions,
 * one exp per particle (category: application). */
#include "../../harness/xapp_harness.h"

void particle_likelihood(long np, int nofs, int rows, int cols, const float *restrict px, const float *restrict py,
                         const int *restrict dx, const int *restrict dy, const unsigned char *restrict img,
                         const double *restrict w0, double *restrict lik, double *restrict w) {
#pragma xapp parallel trip(524288)
    for (long p = 0; p < np; p++) {
        int cx = (int)floorf(px[p] + 0.5f), cy = (int)floorf(py[p] + 0.5f);
        int sum = 0;
#pragma xapp trip(81)
        for (int k = 0; k < nofs; k++) {
            int x = cx + dx[k], y = cy + dy[k];
            x = x < 0 ? 0 : (x >= cols ? cols - 1 : x);
            y = y < 0 ? 0 : (y >= rows ? rows - 1 : y);
            int v = img[(long)y * cols + x];
            sum += (v - 100) * (v - 100) - (v - 228) * (v - 228);
        }
        double l = sum / (50.0 * nofs);
        lik[p] = l;
        w[p] = w0[p] * exp(l);
    }
}

/* The offsets of a disk of radius r, row by row (the same code on both sides); returns their number. */
static int disk_offsets(int r, int *dx, int *dy) {
    int n = 0;
    for (int y = -r; y <= r; y++)
        for (int x = -r; x <= r; x++)
            if (x * x + y * y <= r * r) {
                dx[n] = x;
                dy[n] = y;
                n++;
            }
    return n;
}

int main(int argc, char **argv) {
    long np = xapp_arg(argc, argv, 1, 524288);
    int rows = (int)xapp_arg(argc, argv, 2, 1024), cols = (int)xapp_arg(argc, argv, 3, 1024);
    int dx[121], dy[121];
    int nofs = disk_offsets(5, dx, dy);
    float *px = (float *)xapp_alloc(np * sizeof(float)), *py = (float *)xapp_alloc(np * sizeof(float));
    unsigned char *img = (unsigned char *)xapp_alloc((size_t)rows * cols);
    double *w0 = (double *)xapp_alloc(np * sizeof(double)), *lik = (double *)xapp_alloc(np * sizeof(double));
    double *w = (double *)xapp_alloc(np * sizeof(double));
    xapp_seed(409);
    xapp_fill_uchar(img, (size_t)rows * cols, 150, 178);
    xapp_fill_float(px, np, 0.0f, (float)cols);
    xapp_fill_float(py, np, 0.0f, (float)rows);
    xapp_fill_double(w0, np, 0.5, 1.5);
    XAPP_TIME_REGION(best, particle_likelihood(np, nofs, rows, cols, px, py, dx, dy, img, w0, lik, w));
    xapp_report(best, xapp_checksum_double(w, np) + xapp_checksum_double(lik, np));
    free(px); free(py); free(img); free(w0); free(lik); free(w);
    return 0;
}
