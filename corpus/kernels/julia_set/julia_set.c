/* julia_set: for every point z0 of a w x h grid over [-1.6,1.6]x[-0.9,0.9], the number of
 * iterations z <- z^2 + c (c = -0.8 + 0.156i) before |z| > 2, at most maxit (category:
 * data-dependent-branches). The set is a thin dendrite: most points escape within a few
 * iterations, points near the set take hundreds, so neighbouring pixels (and GPU threads of a
 * warp) run very different trip counts. Double precision; every operation is rounded on its own
 * (built with -ffp-contract=off, the GPU side with __dmul_rn/__dadd_rn) so both sides agree. */
#include "../../harness/xapp_harness.h"

#define CR (-0.8)
#define CI 0.156

void julia_set(int w, int h, int maxit, double dx, double dy, int *restrict out) {
#pragma xapp parallel(2) trip(768)
    for (int py = 0; py < h; py++) {
        double y0 = -0.9 + (double)py * dy;
        int *restrict row = out + (long)py * w;
#pragma xapp trip(1024)
        for (int px = 0; px < w; px++) {
            double zr = -1.6 + (double)px * dx, zi = y0;
            int it = 0;
#pragma xapp trip(45.7)
            while (it < maxit) {
                double zr2 = zr * zr, zi2 = zi * zi;
#pragma xapp prob(0.022)
                if (zr2 + zi2 > 4.0) break;
                zi = 2.0 * zr * zi + CI;
                zr = zr2 - zi2 + CR;
                it++;
            }
            row[px] = it;
        }
    }
}

int main(int argc, char **argv) {
    int w = (int)xapp_arg(argc, argv, 1, 1024), h = (int)xapp_arg(argc, argv, 2, 768);
    int maxit = (int)xapp_arg(argc, argv, 3, 1000);
    int *out = xapp_alloc((size_t)w * h * sizeof(int));
    double dx = 3.2 / w, dy = 1.8 / h;
    XAPP_TIME_REGION(best, julia_set(w, h, maxit, dx, dy, out));
    xapp_report(best, xapp_checksum_int(out, (size_t)w * h));
    free(out);
    return 0;
}
