// Dense matrix multiply C = A B (n × n, row-major), after the NVIDIA SDK's matrixMul, with the
// tuning parameters of the Starchart paper's Table I.
//
// A block of block_size_x × block_size_y threads computes block_size_y * tiling rows and
// block_size_x columns of C; the k dimension is walked in steps of KT = 16. n must be a
// multiple of block_size_x, of block_size_y * tiling and of 16 (the space's restrictions).
//
// Tuning parameters (macros):
//   block_size_x, block_size_y  the thread block ("x", "y")
//   tiling    outputs each thread computes per step (rows block_size_y apart)
//   unroll    unroll factor of the innermost (k) loop
//   use_smem  1: stage tiles of A and B in shared memory; 0: read them from global memory
//   t_a, t_b  1: store that shared tile transposed (only meaningful with use_smem)

#define KT 16
// `#pragma unroll N` does not expand macros; _Pragma with a stringised argument does.
#define PRAGMA(text) _Pragma(#text)
#define UNROLL_BY(n) PRAGMA(unroll n)
#define ROWS (block_size_y * tiling)

#if t_a
#define A_TILE(r, k) s_a[k][r]
#define A_SHAPE [KT][ROWS]
#else
#define A_TILE(r, k) s_a[r][k]
#define A_SHAPE [ROWS][KT]
#endif
#if t_b
#define B_TILE(k, c) s_b[c][k]
#define B_SHAPE [block_size_x][KT]
#else
#define B_TILE(k, c) s_b[k][c]
#define B_SHAPE [KT][block_size_x]
#endif

extern "C" __global__ void matrix(float* C, const float* A, const float* B, int n) {
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int col = blockIdx.x * block_size_x + tx;
    const int row0 = blockIdx.y * ROWS;
    float sum[tiling];
#pragma unroll
    for (int i = 0; i < tiling; i++) sum[i] = 0.0f;
#if use_smem
    __shared__ float s_a A_SHAPE;
    __shared__ float s_b B_SHAPE;
    const int thread = ty * block_size_x + tx;
    const int threads = block_size_x * block_size_y;
#endif
    for (int k0 = 0; k0 < n; k0 += KT) {
#if use_smem
        for (int e = thread; e < ROWS * KT; e += threads) {
            A_TILE(e / KT, e % KT) = A[(row0 + e / KT) * n + k0 + e % KT];
        }
        for (int e = thread; e < KT * block_size_x; e += threads) {
            B_TILE(e / block_size_x, e % block_size_x) = B[(k0 + e / block_size_x) * n + blockIdx.x * block_size_x +
                                                          e % block_size_x];
        }
        __syncthreads();
#endif
UNROLL_BY(unroll)
        for (int k = 0; k < KT; k++) {
#if use_smem
            const float b = B_TILE(k, tx);
#else
            const float b = B[(k0 + k) * n + col];
#endif
#pragma unroll
            for (int i = 0; i < tiling; i++) {
#if use_smem
                sum[i] += A_TILE(ty + i * block_size_y, k) * b;
#else
                sum[i] += A[(row0 + ty + i * block_size_y) * n + k0 + k] * b;
#endif
            }
        }
#if use_smem
        __syncthreads();
#endif
    }
#pragma unroll
    for (int i = 0; i < tiling; i++) {
        C[(row0 + ty + i * block_size_y) * n + col] = sum[i];
    }
}
