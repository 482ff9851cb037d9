/* nbody: all-pairs gravitational accelerations of n bodies with Plummer softening
 * (one sqrt and one division per pair; O(n^2) work on O(n) data) (category: transcendental). */
#include "../../harness/xapp_harness.h"

#define SOFTENING2 1.0e-3f

/* body j: x = b[4j], y = b[4j+1], z = b[4j+2], mass = b[4j+3]; acc[i], acc[n+i], acc[2n+i]. */
void nbody(int n, const float *restrict b, float *restrict acc) {
#pragma xapp parallel trip(8192)
    for (int i = 0; i < n; i++) {
        float xi = b[4 * i], yi = b[4 * i + 1], zi = b[4 * i + 2];
        float ax = 0.0f, ay = 0.0f, az = 0.0f;   /* accumulated in registers */
        for (int j = 0; j < n; j++) {
            float dx = b[4 * j] - xi, dy = b[4 * j + 1] - yi, dz = b[4 * j + 2] - zi;
            float r2 = dx * dx + dy * dy + dz * dz + SOFTENING2;
            float inv_r = 1.0f / sqrtf(r2);
            float s = b[4 * j + 3] * inv_r * inv_r * inv_r;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        acc[i] = ax;
        acc[n + i] = ay;
        acc[2 * n + i] = az;
    }
}

int main(int argc, char **argv) {
    int n = (int)xapp_arg(argc, argv, 1, 8192);
    float *b = (float *)xapp_alloc((size_t)4 * n * sizeof(float)), *acc = (float *)xapp_alloc((size_t)3 * n * sizeof(float));
    xapp_seed(21);
    xapp_fill_float(b, 4 * (size_t)n, 0.0f, 1.0f);   /* positions in the unit cube, masses in [0, 1) */
    double best = INFINITY;
    for (int r = 0; r < xapp_repeats(); r++) {
        double t0 = xapp_now();
        nbody(n, b, acc);
        double t = xapp_now() - t0;
        if (t < best) best = t;
    }
    /* accelerations sum to about zero: checksum their magnitudes, not their signs */
    for (long k = 0; k < 3L * n; k++) acc[k] = fabsf(acc[k]);
    xapp_report(best, xapp_checksum_float(acc, 3 * (size_t)n));
    free(b); free(acc);
    return 0;
}
