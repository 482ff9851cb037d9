// Matrix transpose through a shared-memory tile (N x N floats, row-major): the textbook case of
// shared-memory bank conflicts, for starchart.carve.shared_memory.
//
// A warp writes a tile row (32 consecutive words: 32 banks, conflict-free) and reads a tile column.
// Without padding the column's words are TILE apart: with TILE = 32 they all sit in one bank, so each
// read is served in 32 wavefronts. One padding column (PAD = 1) makes the stride 33 and the read
// conflict-free.
//
// Tuning parameters (given as -D defines):
//   TILE        tile edge and block width: 16 or 32
//   BLOCK_ROWS  block height; each thread copies TILE / BLOCK_ROWS elements: 4, 8, 16 or 32 (<= TILE)
//   PAD         padding columns of the shared tile: 0 or 1
//   N           matrix edge, a multiple of TILE (default 4096)
// Launch: block (TILE, BLOCK_ROWS), grid (N / TILE, N / TILE).
#ifndef N
#define N 4096
#endif

__global__ void transpose(float *out, const float *in) {
    __shared__ float tile[TILE][TILE + PAD];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += BLOCK_ROWS)  // trips: TILE / BLOCK_ROWS
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * N + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += BLOCK_ROWS)  // trips: TILE / BLOCK_ROWS
        out[(y + j) * N + x] = tile[threadIdx.x][threadIdx.y + j];
}
