/* dct8x8, CUDA: a 32x8 thread block transforms four horizontally adjacent 8x8 blocks (an 8-row,
 * 32-column strip: coalesced 128-byte row loads and stores). Each thread owns one pixel: it
 * loads it into shared memory, computes one coefficient of the row pass, then one of the column
 * pass. The DCT matrix is staged in shared memory (threads of a warp read 8 different entries at
 * once, which constant memory would serialise). Sums run in the C side's order. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define TX 32
#define TY 8

static void dct_matrix(float *c) {
    const double pi = 3.14159265358979323846;
    for (int u = 0; u < 8; u++)
        for (int x = 0; x < 8; x++)
            c[u * 8 + x] = (float)((u == 0 ? sqrt(0.125) : 0.5) * cos((2 * x + 1) * u * pi / 16.0));
}

__global__ void dct8x8(long height, long width, const float *__restrict__ in, const float *__restrict__ c,
                       float *__restrict__ out) {
    __shared__ float cs[8][8];
    __shared__ float tile[TY][TX + 1];
    __shared__ float tmp[TY][TX + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    long row = (long)blockIdx.y * TY + ty, col = (long)blockIdx.x * TX + tx;
    bool inside = col < width;   /* height is a multiple of 8: every strip row exists */
    if (ty * TX + tx < 64) cs[(ty * TX + tx) / 8][(ty * TX + tx) % 8] = c[ty * TX + tx];
    tile[ty][tx] = inside ? in[row * width + col] : 0.0f;
    __syncthreads();
    int u = tx % 8, b = tx - u;   /* b: first column of this thread's 8x8 block in the strip */
    float acc = 0.0f;
    for (int x = 0; x < 8; x++) acc += cs[u][x] * tile[ty][b + x];      /* row pass */
    tmp[ty][tx] = acc;
    __syncthreads();
    acc = 0.0f;
    for (int y = 0; y < 8; y++) acc += cs[ty][y] * tmp[y][tx];           /* column pass, v = ty */
    if (inside) out[row * width + col] = acc;
}

int main(int argc, char **argv) {
    long height = xapp_arg(argc, argv, 1, 8192), width = xapp_arg(argc, argv, 2, 8192);
    if (height % 8 || width % 8) { fprintf(stderr, "dct8x8: height and width must be multiples of 8\n"); return 2; }
    long n = height * width;
    float *in = (float *)xapp_alloc(n * sizeof(float)), *out = (float *)xapp_alloc(n * sizeof(float));
    float c[64];
    dct_matrix(c);
    xapp_seed(506);
    xapp_fill_float(in, n, 0.0f, 255.0f);
    float *din, *dc, *dout;
    XAPP_CUDA(cudaMalloc(&din, n * sizeof(float))); XAPP_CUDA(cudaMalloc(&dout, n * sizeof(float)));
    XAPP_CUDA(cudaMalloc(&dc, 64 * sizeof(float)));
    XAPP_CUDA(cudaMemcpy(din, in, n * sizeof(float), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpy(dc, c, 64 * sizeof(float), cudaMemcpyHostToDevice));
    dim3 threads(TX, TY);
    dim3 blocks((unsigned)((width + TX - 1) / TX), (unsigned)(height / TY));
    XAPP_TIME_KERNEL(best, dct8x8<<<blocks, threads>>>(height, width, din, dc, dout));
    XAPP_CUDA(cudaMemcpy(out, dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(out, n));
    cudaFree(din); cudaFree(dc); cudaFree(dout); free(in); free(out);
    return 0;
}
