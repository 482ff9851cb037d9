/* gaussian_exp: Gaussian (RBF) kernel sum at nq query points of the unit square over nc weighted
 * centres: out[i] = sum_j w_j exp(-|q_i - c_j|^2 / (2 sigma^2)), one expf per pair
 * (category: transcendental). */
#include "../../harness/xapp_harness.h"

#define SIGMA 0.1f

/* centre j: x = c[3j], y = c[3j+1], weight = c[3j+2]. */
void gaussian_exp(long nq, int nc, const float *restrict qx, const float *restrict qy, const float *restrict c,
                  float *restrict out) {
    const float scale = -1.0f / (2.0f * SIGMA * SIGMA);
#pragma xapp parallel trip(65536)
    for (long i = 0; i < nq; i++) {
        float x = qx[i], y = qy[i], sum = 0.0f;
        for (int j = 0; j < nc; j++) {
            float dx = x - c[3 * j], dy = y - c[3 * j + 1];
            sum += c[3 * j + 2] * expf((dx * dx + dy * dy) * scale);
        }
        out[i] = sum;
    }
}

int main(int argc, char **argv) {
    long nq = xapp_arg(argc, argv, 1, 1L << 16);
    int nc = (int)xapp_arg(argc, argv, 2, 512);
    float *qx = (float *)xapp_alloc((size_t)nq * sizeof(float)), *qy = (float *)xapp_alloc((size_t)nq * sizeof(float));
    float *c = (float *)xapp_alloc((size_t)3 * nc * sizeof(float)), *out = (float *)xapp_alloc((size_t)nq * sizeof(float));
    xapp_seed(24);
    xapp_fill_float(qx, nq, 0.0f, 1.0f);
    xapp_fill_float(qy, nq, 0.0f, 1.0f);
    xapp_fill_float(c, 3 * (size_t)nc, 0.0f, 1.0f);   /* centres in the unit square, weights in [0, 1) */
    double best = INFINITY;
    for (int r = 0; r < xapp_repeats(); r++) {
        double t0 = xapp_now();
        gaussian_exp(nq, nc, qx, qy, c, out);
        double t = xapp_now() - t0;
        if (t < best) best = t;
    }
    xapp_report(best, xapp_checksum_float(out, nq));
    free(qx); free(qy); free(c); free(out);
    return 0;
}
