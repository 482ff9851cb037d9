// All-pairs gravitational accelerations of n_bodies bodies, after the NVIDIA SDK's nbody.
//
// Thread (tx, ty) of a block works for body blockIdx.x * block_size_x + tx: the block loads
// block_size_x * block_size_y bodies at a time into shared memory, thread row ty takes
// block_size_x of them, and the rows' partial sums are added at the end (block_size_y threads
// cooperate on a body, as the SDK's "multithreading" variant). n_bodies must be a multiple of
// block_size_x * block_size_y (a restriction of the space).
//
// Tuning parameters (Table I; macros):
//   block_size_x, block_size_y  the thread block ("x", "y")
//   unroll                      unroll factor of the innermost loop over bodies
//   n_bodies                    the number of bodies (an input size, "n")
// Positions are float4 (x, y, z, mass); accelerations are written as float4 (ax, ay, az, 0).

#define SOFTENING_SQUARED 0.01f
// `#pragma unroll N` does not expand macros; _Pragma with a stringised argument does.
#define PRAGMA(text) _Pragma(#text)
#define UNROLL_BY(n) PRAGMA(unroll n)

extern "C" __global__ void nbody(const float4* positions, float4* accelerations) {
    __shared__ float4 s_bodies[block_size_y][block_size_x];
    __shared__ float4 s_partial[block_size_y][block_size_x];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int body = blockIdx.x * block_size_x + tx;
    const float4 me = positions[body];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j0 = 0; j0 < n_bodies; j0 += block_size_x * block_size_y) {
        s_bodies[ty][tx] = positions[j0 + ty * block_size_x + tx];
        __syncthreads();
UNROLL_BY(unroll)
        for (int k = 0; k < block_size_x; k++) {
            const float4 other = s_bodies[ty][k];
            const float dx = other.x - me.x, dy = other.y - me.y, dz = other.z - me.z;
            const float inverse = rsqrtf(dx * dx + dy * dy + dz * dz + SOFTENING_SQUARED);
            const float strength = other.w * inverse * inverse * inverse;
            ax += dx * strength;
            ay += dy * strength;
            az += dz * strength;
        }
        __syncthreads();
    }
    s_partial[ty][tx] = make_float4(ax, ay, az, 0.0f);
    __syncthreads();
    if (ty == 0) {
        float4 total = s_partial[0][tx];
        for (int row = 1; row < block_size_y; row++) {
            total.x += s_partial[row][tx].x;
            total.y += s_partial[row][tx].y;
            total.z += s_partial[row][tx].z;
        }
        accelerations[body] = total;
    }
}
