/* particle_boundary: `steps` explicit time steps of free particles in the unit box with gravity,
 * bouncing off the six walls with some energy loss (three branches per step, each rarely taken,
 * at moments that differ from particle to particle) (category: data-dependent-branches). */
#include "../../harness/xapp_harness.h"

#define GRAVITY 9.81f
#define RESTITUTION 0.9f   /* normal velocity kept after a wall hit */
#define FRICTION 0.98f      /* tangential velocity kept after a wall hit */

/* The time steps run in a host loop around the band over particles, so that the particle loop
 * vectorises (the compiler turns the wall-hit branches into selects): positions live in pos
 * (x, y, z blocks of n), velocities in the scratch vel, 24 MiB in all at the default size.
 * Every particle gets exactly the updates of the one-particle-at-a-time form. */
void particle_boundary(long n, int steps, float dt, const float *restrict pos0, const float *restrict vel0,
                       float *restrict pos, float *restrict vel) {
    const float gdt = GRAVITY * dt;
    memcpy(pos, pos0, (size_t)3 * n * sizeof(float));   /* every run starts from the inputs */
    memcpy(vel, vel0, (size_t)3 * n * sizeof(float));
    float *restrict px = pos, *restrict py = pos + n, *restrict pz = pos + 2 * n;
    float *restrict qx = vel, *restrict qy = vel + n, *restrict qz = vel + 2 * n;
#pragma xapp trip(100)
    for (int s = 0; s < steps; s++) {
#pragma xapp parallel trip(1048576)
        for (long i = 0; i < n; i++) {
            float x = px[i], y = py[i], z = pz[i], vx = qx[i], vy = qy[i], vz = qz[i];
            vz -= gdt;
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
            px[i] = x; py[i] = y; pz[i] = z;
            qx[i] = vx; qy[i] = vy; qz[i] = vz;
        }
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 20);
    int steps = (int)xapp_arg(argc, argv, 2, 100);
    float *pos0 = (float *)xapp_alloc((size_t)3 * n * sizeof(float)), *vel0 = (float *)xapp_alloc((size_t)3 * n * sizeof(float));
    float *pos = (float *)xapp_alloc((size_t)3 * n * sizeof(float)), *vel = (float *)xapp_alloc((size_t)3 * n * sizeof(float));
    xapp_seed(19);
    xapp_fill_float(pos0, 3 * n, 0.0f, 1.0f);
    xapp_fill_float(vel0, 3 * n, -2.0f, 2.0f);
    double best = INFINITY;
    for (int r = 0; r < xapp_repeats(); r++) {
        double t0 = xapp_now();
        particle_boundary(n, steps, 0.01f, pos0, vel0, pos, vel);
        double t = xapp_now() - t0;
        if (t < best) best = t;
    }
    xapp_report(best, xapp_checksum_float(pos, 3 * n));
    free(pos0); free(vel0); free(pos); free(vel);
    return 0;
}
