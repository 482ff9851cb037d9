/* grayscale_aos, CUDA: one thread per pixel on 32x8 blocks; a warp reads 96 contiguous bytes of the
 * 3-byte structs (served by a few L1 sectors) and writes 128 contiguous bytes. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

typedef struct { unsigned char r, g, b; } rgb;

__global__ void grayscale(long height, long width, const rgb *__restrict__ img, float *__restrict__ gray) {
    long x = (long)blockIdx.x * blockDim.x + threadIdx.x;
    long y = (long)blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        rgb p = img[y * width + x];
        gray[y * width + x] = 0.299f * p.r + 0.587f * p.g + 0.114f * p.b;
    }
}

int main(int argc, char **argv) {
    long height = xapp_arg(argc, argv, 1, 8192), width = xapp_arg(argc, argv, 2, 8192);
    long n = height * width;
    rgb *img = (rgb *)xapp_alloc(n * sizeof(rgb));
    float *gray = (float *)xapp_alloc(n * sizeof(float));
    xapp_seed(3);
    xapp_fill_uchar((unsigned char *)img, n * sizeof(rgb), 0, 255);
    rgb *dimg; float *dgray;
    XAPP_CUDA(cudaMalloc(&dimg, n * sizeof(rgb))); XAPP_CUDA(cudaMalloc(&dgray, n * sizeof(float)));
    XAPP_CUDA(cudaMemcpy(dimg, img, n * sizeof(rgb), cudaMemcpyHostToDevice));
    dim3 threads(32, 8);
    dim3 blocks((unsigned)((width + 31) / 32), (unsigned)((height + 7) / 8));
    XAPP_TIME_KERNEL(best, grayscale<<<blocks, threads>>>(height, width, dimg, dgray));
    XAPP_CUDA(cudaMemcpy(gray, dgray, n * sizeof(float), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(gray, n));
    cudaFree(dimg); cudaFree(dgray); free(img); free(gray);
    return 0;
}
