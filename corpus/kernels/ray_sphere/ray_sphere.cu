/* ray_sphere, CUDA: one thread per pixel in 32x8 blocks; the sphere list sits in constant memory
 * (all threads of a warp read sphere k at the same time: a broadcast). Threads whose rays meet a
 * sphere take the square-root branch, the others wait: divergence at sphere edges. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define TX 32
#define TY 8
#define MAX_SPHERES 1024

__constant__ float scx[MAX_SPHERES], scy[MAX_SPHERES], scz[MAX_SPHERES], sr[MAX_SPHERES], salbedo[MAX_SPHERES];

__global__ void ray_sphere(int w, int h, int ns, float *__restrict__ image) {
    const float lx = -0.408248290f, ly = 0.816496581f, lz = -0.408248290f;
    int px = blockIdx.x * TX + threadIdx.x, py = blockIdx.y * TY + threadIdx.y;
    if (px >= w || py >= h) return;
    const float scale = 1.0f / (float)h;
    float dx = ((float)px - 0.5f * (float)w + 0.5f) * scale;
    float dy = ((float)py - 0.5f * (float)h + 0.5f) * scale;
    float inv = 1.0f / sqrtf(dx * dx + dy * dy + 1.0f);
    dx *= inv; dy *= inv;
    float dz = inv;
    float tmin = INFINITY;
    int hit = -1;
    for (int k = 0; k < ns; k++) {
        float b = dx * scx[k] + dy * scy[k] + dz * scz[k];
        float c = scx[k] * scx[k] + scy[k] * scy[k] + scz[k] * scz[k] - sr[k] * sr[k];
        float disc = b * b - c;
        if (disc > 0.0f) {
            float t = b - sqrtf(disc);
            if (t > 1e-3f && t < tmin) { tmin = t; hit = k; }
        }
    }
    float shade = 0.0f;
    if (hit >= 0) {
        float inv_r = 1.0f / sr[hit];
        float nx = (tmin * dx - scx[hit]) * inv_r, ny = (tmin * dy - scy[hit]) * inv_r;
        float nz = (tmin * dz - scz[hit]) * inv_r;
        float lambert = nx * lx + ny * ly + nz * lz;
        shade = salbedo[hit] * (0.1f + 0.9f * (lambert > 0.0f ? lambert : 0.0f));
    }
    image[(long)py * w + px] = shade;
}

int main(int argc, char **argv) {
    int w = (int)xapp_arg(argc, argv, 1, 1024), h = (int)xapp_arg(argc, argv, 2, 768);
    int ns = (int)xapp_arg(argc, argv, 3, 128);
    if (ns > MAX_SPHERES) { fprintf(stderr, "ray_sphere: at most %d spheres\n", MAX_SPHERES); return 2; }
    size_t bytes = (size_t)w * h * sizeof(float);
    float *image = (float *)xapp_alloc(bytes);
    float *cx = (float *)xapp_alloc(ns * sizeof(float)), *cy = (float *)xapp_alloc(ns * sizeof(float));
    float *cz = (float *)xapp_alloc(ns * sizeof(float)), *r = (float *)xapp_alloc(ns * sizeof(float));
    float *albedo = (float *)xapp_alloc(ns * sizeof(float));
    xapp_seed(508);
    xapp_fill_float(cx, ns, -5.0f, 5.0f);
    xapp_fill_float(cy, ns, -3.5f, 3.5f);
    xapp_fill_float(cz, ns, 6.0f, 20.0f);
    xapp_fill_float(r, ns, 0.3f, 1.5f);
    xapp_fill_float(albedo, ns, 0.2f, 1.0f);
    XAPP_CUDA(cudaMemcpyToSymbol(scx, cx, ns * sizeof(float)));
    XAPP_CUDA(cudaMemcpyToSymbol(scy, cy, ns * sizeof(float)));
    XAPP_CUDA(cudaMemcpyToSymbol(scz, cz, ns * sizeof(float)));
    XAPP_CUDA(cudaMemcpyToSymbol(sr, r, ns * sizeof(float)));
    XAPP_CUDA(cudaMemcpyToSymbol(salbedo, albedo, ns * sizeof(float)));
    float *dimage;
    XAPP_CUDA(cudaMalloc(&dimage, bytes));
    dim3 threads(TX, TY);
    dim3 blocks((unsigned)((w + TX - 1) / TX), (unsigned)((h + TY - 1) / TY));
    XAPP_TIME_KERNEL(best, ray_sphere<<<blocks, threads>>>(w, h, ns, dimage));
    XAPP_CUDA(cudaMemcpy(image, dimage, bytes, cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_float(image, (size_t)w * h));
    cudaFree(dimage); free(image); free(cx); free(cy); free(cz); free(r); free(albedo);
    return 0;
}
