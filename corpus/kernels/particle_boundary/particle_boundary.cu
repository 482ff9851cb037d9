/* particle_boundary, CUDA: one thread per particle, state in registers for all steps,
 * structure-of-arrays loads and stores (coalesced); the wall branches diverge rarely. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define GRAVITY 9.81f
#define RESTITUTION 0.9f   /* normal velocity kept after a wall hit */
#define FRICTION 0.98f      /* tangential velocity kept after a wall hit */

__global__ void particle_boundary(long n, int steps, float dt, const float *__restrict__ pos0,
                                  const float *__restrict__ vel0, float *__restrict__ pos) {
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = pos0[i], y = pos0[n + i], z = pos0[2 * n + i];
    float vx = vel0[i], vy = vel0[n + i], vz = vel0[2 * n + i];
    for (int s = 0; s < steps; s++) {
        vz -= GRAVITY * dt;
        x += vx * dt;
        y += vy * dt;
        z += vz * dt;
        if (x < 0.0f || x > 1.0f) {   /* wall hit: reflect, lose a little energy */
            x = x < 0.0f ? -x : 2.0f - x;
            vx = -RESTITUTION * vx;
            vy *= FRICTION;
            vz *= FRICTION;
        }
        if (y < 0.0f || y > 1.0f) {
            y = y < 0.0f ? -y : 2.0f - y;
            vy = -RESTITUTION * vy;
            vx *= FRICTION;
            vz *= FRICTION;
        }
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

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 20);
    int steps = (int)xapp_arg(argc, argv, 2, 100);
    size_t bytes = (size_t)3 * n * sizeof(float);
    float *pos0 = (float *)xapp_alloc(bytes), *vel0 = (float *)xapp_alloc(bytes), *pos = (float *)xapp_alloc(bytes);
    xapp_seed(19);
    xapp_fill_float(pos0, 3 * n, 0.0f, 1.0f);
    xapp_fill_float(vel0, 3 * n, -2.0f, 2.0f);
    float *dpos0, *dvel0, *dpos;
    XAPP_CUDA(cudaMalloc(&dpos0, bytes)); XAPP_CUDA(cudaMalloc(&dvel0, bytes)); XAPP_CUDA(cudaMalloc(&dpos, bytes));
    XAPP_CUDA(cudaMemcpy(dpos0, pos0, bytes, cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dvel0, vel0, bytes, cudaMemcpyHostToDevice));
    int threads = 256;
    long blocks = (n + threads - 1) / threads;
    XAPP_TIME_KERNEL(best, particle_boundary<<<blocks, threads>>>(n, steps, 0.01f, dpos0, dvel0, dpos));
    XAPP_CUDA(cudaMemcpy(pos, dpos, bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(pos, 3 * n));
    cudaFree(dpos0); cudaFree(dvel0); cudaFree(dpos); free(pos0); free(vel0); free(pos);
    return 0;
}
