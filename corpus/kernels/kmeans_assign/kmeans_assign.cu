/* kmeans_assign, CUDA: one thread per point; the features are transposed on the host (feature-major,
 * as Rodinia's kmeans does once at setup) so that a warp reads each feature of 32 points in one
 * coalesced access; the centres sit in constant memory (every thread reads the same centre value,
 * a broadcast) and each point's distances to all centres are accumulated together in registers,
 * feature by feature, each in the C side's order. */
#include "../../harness/xapp_harness.h"
#include "../../harness/xapp_cuda.h"

#define MAX_CLUST 16
#define MAX_CENT 8192

__constant__ float c_cent[MAX_CENT];

__global__ void assign(long npoints, int nfeat, int nclust, const float *__restrict__ feat_t, int *__restrict__ member) {
    long p = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npoints) return;
    float d[MAX_CLUST];
#pragma unroll
    for (int c = 0; c < MAX_CLUST; c++) d[c] = 0.0f;
    for (int f = 0; f < nfeat; f++) {
        float x = feat_t[(long)f * npoints + p];
#pragma unroll
        for (int c = 0; c < MAX_CLUST; c++)
            if (c < nclust) {
                float t = x - c_cent[c * nfeat + f];
                d[c] += t * t;
            }
    }
    float best = INFINITY;
    int idx = 0;
#pragma unroll
    for (int c = 0; c < MAX_CLUST; c++)
        if (c < nclust && d[c] < best) {
            best = d[c];
            idx = c;
        }
    member[p] = idx;
}

/* n quantised features (integers 0..255) as floats; the same generator calls on both sides. */
static void fill_quantised(float *a, size_t n, int *tmp, size_t chunk) {
    for (size_t k = 0; k < n; k += chunk) {
        size_t m = n - k < chunk ? n - k : chunk;
        xapp_fill_int(tmp, m, 0, 256);
        for (size_t q = 0; q < m; q++) a[k + q] = (float)tmp[q];
    }
}

int main(int argc, char **argv) {
    long npoints = xapp_arg(argc, argv, 1, 1048576);
    int nfeat = (int)xapp_arg(argc, argv, 2, 34), nclust = (int)xapp_arg(argc, argv, 3, 8);
    if (nclust > MAX_CLUST || nclust * nfeat > MAX_CENT) { fprintf(stderr, "kmeans_assign: too many centres\n"); return 2; }
    size_t cnt = (size_t)npoints * nfeat;
    float *feat = (float *)xapp_alloc(cnt * sizeof(float)), *feat_t = (float *)xapp_alloc(cnt * sizeof(float));
    float *cent = (float *)xapp_alloc((size_t)nclust * nfeat * sizeof(float));
    int *member = (int *)xapp_alloc(npoints * sizeof(int)), *tmp = (int *)xapp_alloc(65536 * sizeof(int));
    xapp_seed(406);
    fill_quantised(feat, cnt, tmp, 65536);
    fill_quantised(cent, (size_t)nclust * nfeat, tmp, 65536);
    for (long p = 0; p < npoints; p++)
        for (int f = 0; f < nfeat; f++) feat_t[(size_t)f * npoints + p] = feat[(size_t)p * nfeat + f];
    float *dfeat_t;
    int *dmember;
    XAPP_CUDA(cudaMalloc(&dfeat_t, cnt * sizeof(float))); XAPP_CUDA(cudaMalloc(&dmember, npoints * sizeof(int)));
    XAPP_CUDA(cudaMemcpy(dfeat_t, feat_t, cnt * sizeof(float), cudaMemcpyHostToDevice));
    XAPP_CUDA(cudaMemcpyToSymbol(c_cent, cent, (size_t)nclust * nfeat * sizeof(float)));
    int threads = 256;
    long blocks = (npoints + threads - 1) / threads;
    XAPP_TIME_KERNEL(best, assign<<<blocks, threads>>>(npoints, nfeat, nclust, dfeat_t, dmember));
    XAPP_CUDA(cudaMemcpy(member, dmember, npoints * sizeof(int), cudaMemcpyDeviceToHost));
    xapp_report(best, xapp_checksum_int(member, npoints));
    cudaFree(dfeat_t); cudaFree(dmember); free(feat); free(feat_t); free(cent); free(member); free(tmp);
    return 0;
}
