/* mandelbrot: escape-time iteration count of every pixel of a w x h view of [-2.25,0.75]x[-1.5,1.5];
 * the iteration count varies from 1 to maxit between neighbouring pixels
 * (category: data-dependent-branches: data-dependent trip count, divergent early exit). */
#include "../../harness/xapp_harness.h"

void mandelbrot(int w, int h, int maxit, float dx, float dy, int *restrict out) {
#pragma xapp parallel(2) trip(1536)
    for (int py = 0; py < h; py++) {
        float ci = -1.5f + (float)py * dy;   /* constant along the row */
        int *restrict row = out + (long)py * w;
#pragma xapp trip(1536)
        for (int px = 0; px < w; px++) {
            float cr = -2.25f + (float)px * dx;
            float zr = 0.0f, zi = 0.0f;
            int it = 0;
#pragma xapp trip(47)
            while (it < maxit) {
                float zr2 = zr * zr, zi2 = zi * zi;
#pragma xapp prob(0.017)
                if (zr2 + zi2 > 4.0f) break;
                zi = 2.0f * zr * zi + ci;
                zr = zr2 - zi2 + cr;
                it++;
            }
            row[px] = it;
        }
    }
}

int main(int argc, char **argv) {
    int w = (int)xapp_arg(argc, argv, 1, 1536);
    int h = (int)xapp_arg(argc, argv, 2, 1536);
    int maxit = (int)xapp_arg(argc, argv, 3, 256);
    int *out = (int *)xapp_alloc((size_t)w * h * sizeof(int));
    float dx = 3.0f / (float)w, dy = 3.0f / (float)h;
    double best = INFINITY;
    for (int r = 0; r < xapp_repeats(); r++) {
        double t0 = xapp_now();
        mandelbrot(w, h, maxit, dx, dy, out);
        double t = xapp_now() - t0;
        if (t < best) best = t;
    }
    xapp_report(best, xapp_checksum_int(out, (size_t)w * h));
    free(out);
    return 0;
}
