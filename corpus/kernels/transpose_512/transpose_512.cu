/* transpose_512: input-size variant of corpus kernel transpose (512 x 512); same code, other default args and trip counts. */
/* transpose, CUDA: a 32x8 block moves a 32x32 tile through shared memory (padded to 33 columns
 * against bank conflicts), so both the reads of `in` and the writes of `out` are coalesced. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define TILE 32
#define ROWS 8

__global__ void transpose(long rows, long cols, const float *__restrict__ in, float *__restrict__ out) {
    __shared__ float tile[TILE][TILE + 1];
    long i0 = (long)blockIdx.y * TILE, j0 = (long)blockIdx.x * TILE;  /* tile origin in `in` */
    long j = j0 + threadIdx.x;
    for (int r = threadIdx.y; r < TILE; r += ROWS) {
        long i = i0 + r;
        if (i < rows && j < cols) tile[r][threadIdx.x] = in[i * cols + j];
    }
    __syncthreads();
    long i = i0 + threadIdx.x;  /* now threadIdx.x runs along a row of `out` (a column of `in`) */
    for (int r = threadIdx.y; r < TILE; r += ROWS) {
        long jj = j0 + r;
        if (jj < cols && i < rows) out[jj * rows + i] = tile[threadIdx.x][r];
    }
}

int main(int argc, char **argv) {
    long rows = xapp_arg(argc, argv, 1, 512), cols = xapp_arg(argc, argv, 2, 512);
    size_t bytes = rows * cols * sizeof(float);
    float *in = (float *)xapp_alloc(bytes), *out = (float *)xapp_alloc(bytes);
    xapp_seed(18);
    xapp_fill_float(in, rows * cols, -1.0f, 1.0f);
    float *din, *dout;
    XAPP_CUDA(cudaMalloc(&din, bytes)); XAPP_CUDA(cudaMalloc(&dout, bytes));
    XAPP_CUDA(cudaMemcpy(din, in, bytes, cudaMemcpyHostToDevice));
    dim3 threads(TILE, ROWS);
    dim3 blocks((unsigned)((cols + TILE - 1) / TILE), (unsigned)((rows + TILE - 1) / TILE));
    XAPP_TIME_KERNEL(best, transpose<<<blocks, threads>>>(rows, cols, din, dout));
    XAPP_CUDA(cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(out, rows * cols));
    cudaFree(din); cudaFree(dout); free(in); free(out);
    return 0;
}
