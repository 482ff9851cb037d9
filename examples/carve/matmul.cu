// Tiled matrix multiply C = A * B (square N x N, row-major floats): a small parameterised
// kernel for resource-usage and SASS-count examples (starchart.carve).
//
// Loop comments of the form "trips: <expression>" give the loop trip counts to starchart.carve.sass
// (source_trip_counts); it also reads them from the compiled code when the bounds are constants.
//
// Tuning parameters (given as -D defines; every combination below compiles):
//   TILE    thread-block edge and shared-memory tile edge: 8, 16 or 32 (TILE*TILE threads)
//   WPT     outputs per thread along y (register tiling): 1, 2 or 4; TILE % WPT == 0
//   UNROLL  unroll factor of the inner product loop over the tile: 1, 2, 4 ... TILE
//   N       matrix edge, a multiple of TILE (default 1024)
// Launch: block (TILE, TILE / WPT), grid (N / TILE, N / TILE).
#ifndef TILE
#define TILE 16
#endif
#ifndef WPT
#define WPT 1
#endif
#ifndef UNROLL
#define UNROLL 1
#endif
#ifndef N
#define N 1024
#endif

#define ROWS (TILE / WPT)
// #pragma arguments are not macro-expanded: build the pragma with _Pragma instead.
#define PRAGMA(x) _Pragma(#x)
#define UNROLL_BY(n) PRAGMA(unroll n)

extern "C" __global__ void matmul(float *C, const float *A, const float *B) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * TILE + tx;
    int row0 = blockIdx.y * TILE + ty;
    float acc[WPT];
#pragma unroll
    for (int w = 0; w < WPT; w++) acc[w] = 0.0f;

    for (int t = 0; t < N / TILE; t++) {  // trips: N / TILE
#pragma unroll
        for (int w = 0; w < WPT; w++) {
            As[ty + w * ROWS][tx] = A[(row0 + w * ROWS) * N + t * TILE + tx];
            Bs[ty + w * ROWS][tx] = B[(t * TILE + ty + w * ROWS) * N + col];
        }
        __syncthreads();
        // Unrolled by UNROLL, the compiled loop runs TILE / UNROLL times (not at all when UNROLL == TILE).
        UNROLL_BY(UNROLL)
        for (int k = 0; k < TILE; k++) {  // trips: TILE / UNROLL
#pragma unroll
            for (int w = 0; w < WPT; w++) acc[w] += As[ty + w * ROWS][k] * Bs[k][tx];
        }
        __syncthreads();
    }
#pragma unroll
    for (int w = 0; w < WPT; w++) C[(row0 + w * ROWS) * N + col] = acc[w];
}
