// One time step of Rodinia's hotspot thermal simulation (5-point stencil) with shared-memory tiles.
//
// Each block loads its tile of the temperature and power grids into shared memory, computes the
// new temperature of each cell into a shared buffer, then writes the buffer out. Neighbours
// outside the tile are read from global memory; cells on the chip's edge use their own
// temperature for the missing neighbour, as Rodinia does.
//
// Tuning parameters (Table I; macros):
//   block_size_x, block_size_y  the thread block ("x", "y"): one cell per thread
//   t_temp, t_power, t_buffer   1: store that shared array transposed ([x][y] instead of [y][x]),
//                               which changes the shared-memory bank pattern

#if t_temp
#define TEMP(y, x) s_temp[x][y]
#define TEMP_SHAPE [block_size_x][block_size_y]
#else
#define TEMP(y, x) s_temp[y][x]
#define TEMP_SHAPE [block_size_y][block_size_x]
#endif
#if t_power
#define POWER(y, x) s_power[x][y]
#define POWER_SHAPE [block_size_x][block_size_y]
#else
#define POWER(y, x) s_power[y][x]
#define POWER_SHAPE [block_size_y][block_size_x]
#endif
#if t_buffer
#define BUFFER(y, x) s_buffer[x][y]
#define BUFFER_SHAPE [block_size_x][block_size_y]
#else
#define BUFFER(y, x) s_buffer[y][x]
#define BUFFER_SHAPE [block_size_y][block_size_x]
#endif

extern "C" __global__ void hotspot(const float* temp_src, const float* power, float* temp_dst, int rows, int cols,
                                   float step_div_cap, float rx_1, float ry_1, float rz_1, float amb_temp) {
    __shared__ float s_temp TEMP_SHAPE;
    __shared__ float s_power POWER_SHAPE;
    __shared__ float s_buffer BUFFER_SHAPE;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int col = blockIdx.x * block_size_x + tx;
    const int row = blockIdx.y * block_size_y + ty;
    const bool inside = row < rows && col < cols;
    if (inside) {
        TEMP(ty, tx) = temp_src[row * cols + col];
        POWER(ty, tx) = power[row * cols + col];
    }
    __syncthreads();
    if (inside) {
        const float centre = TEMP(ty, tx);
        // A neighbour inside the tile comes from shared memory, else from global memory.
        const float north = row == 0 ? centre : ty > 0 ? TEMP(ty - 1, tx) : temp_src[(row - 1) * cols + col];
        const float south = row == rows - 1 ? centre
                          : ty < block_size_y - 1 ? TEMP(ty + 1, tx) : temp_src[(row + 1) * cols + col];
        const float west = col == 0 ? centre : tx > 0 ? TEMP(ty, tx - 1) : temp_src[row * cols + col - 1];
        const float east = col == cols - 1 ? centre
                         : tx < block_size_x - 1 ? TEMP(ty, tx + 1) : temp_src[row * cols + col + 1];
        BUFFER(ty, tx) = centre + step_div_cap * (POWER(ty, tx) + (south + north - 2.0f * centre) * ry_1 +
                                                 (east + west - 2.0f * centre) * rx_1 + (amb_temp - centre) * rz_1);
    }
    __syncthreads();
    if (inside) {
        temp_dst[row * cols + col] = BUFFER(ty, tx);
    }
}
