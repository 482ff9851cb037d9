/* particle_boundary: `steps` explicit time steps of free particles in the unit box with gravity,
 * bouncing off the six walls with some energy loss (three branches per step, each rarely taken,
 * at moments that differ from particle to particle) (category: data-dependent-branches). */
#include "../../harness/xapp_harness.h"

#define GRAVITY 9.81f
#define RESTITUTION 0.9f   /* normal velocity kept after a wall hit */
#define FRICTION 0.98f      /* tangential velocity kept after a wall hit */

void particle_boundary(long n, int steps, float dt, const float *pos0, const float *vel0, float *pos) {
#pragma xapp parallel trip(1048576)
    for (long i = 0; i < n; i++) {
        float x = pos0[i], y = pos0[n + i], z = pos0[2 * n + i];
        float vx = vel0[i], vy = vel0[n + i], vz = vel0[2 * n + i];
        for (int s = 0; s < steps; s++) {
            vz -= GRAVITY * dt;
            x += vx * dt;
            y += vy * dt;
            z += vz * dt;
#pragma xapp prob(0.009)
            if (x < 0.0f || x > 1.0f) {   /* wall hit: reflect, lose a little energy */
                x = x < 0.0f ? -x : 2.0f - x;
                vx = -RESTITUTION * vx;
                vy *= FRICTION;
                vz *= FRICTION;
            }
#pragma xapp prob(0.009)
            if (y < 0.0f || y > 1.0f) {
                y = y < 0.0f ? -y : 2.0f - y;
                vy = -RESTITUTION * vy;
                vx *= FRICTION;
                vz *= FRICTION;
            }
#pragma xapp prob(0.02)
            if (z < 0.0f || z > 1.0f) {
                z = z < 0.0f ? -z : 2.0f - z;
                vz = -RESTITUTION * vz;
                vx *= FRICTION;
                vy *= FRICTION;
            }
        }
        pos[i] = x;
        pos[n + i] = y;
        pos[2 * n + i] = z;
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 20);
    int steps = (int)xapp_arg(argc, argv, 2, 100);
    float *pos0 = (float *)xapp_alloc((size_t)3 * n * sizeof(float)), *vel0 = (float *)xapp_alloc((size_t)3 * n * sizeof(float));
    float *pos = (float *)xapp_alloc((size_t)3 * n * sizeof(float));
    xapp_seed(19);
    xapp_fill_float(pos0, 3 * n, 0.0f, 1.0f);
    xapp_fill_float(vel0, 3 * n, -2.0f, 2.0f);
    double best = INFINITY;
    for (int r = 0; r < xapp_repeats(); r++) {
        double t0 = xapp_now();
        particle_boundary(n, steps, 0.01f, pos0, vel0, pos);
        double t = xapp_now() - t0;
        if (t < best) best = t;
    }
    xapp_report(best, xapp_checksum_float(pos, 3 * n));
    free(pos0); free(vel0); free(pos);
    return 0;
}
