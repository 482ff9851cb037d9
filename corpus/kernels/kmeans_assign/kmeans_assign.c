/* kmeans_assign: the assignment step of k-means clustering, as in Rodinia kmeans: every point
 * (npoints x nfeat features, stored point by point) goes to the nearest of nclust centres in
 * squared Euclidean distance (first minimum wins). The features are 8-bit quantised values held
 * in floats, so every distance is an exact integer whatever the summation order, and the
 * memberships are exact (category: application). */
#include "../../harness/xapp_harness.h"

void kmeans_assign(long npoints, int nfeat, int nclust, const float *restrict feat, const float *restrict cent,
                   int *restrict member) {
#pragma xapp parallel trip(1048576)
    for (long p = 0; p < npoints; p++) {
        const float *restrict x = feat + p * nfeat;
        float best = INFINITY;
        int idx = 0;
#pragma xapp trip(8)
        for (int c = 0; c < nclust; c++) {
            const float *restrict y = cent + c * nfeat;
            float d = 0.0f;
#pragma xapp trip(34)
            for (int f = 0; f < nfeat; f++) {
                float t = x[f] - y[f];
                d += t * t;
            }
#pragma xapp prob(0.21)
            if (d < best) {
                best = d;
                idx = c;
            }
        }
        member[p] = idx;
    }
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
    size_t cnt = (size_t)npoints * nfeat;
    float *feat = (float *)xapp_alloc(cnt * sizeof(float)), *cent = (float *)xapp_alloc((size_t)nclust * nfeat * sizeof(float));
    int *member = (int *)xapp_alloc(npoints * sizeof(int)), *tmp = (int *)xapp_alloc(65536 * sizeof(int));
    xapp_seed(406);
    fill_quantised(feat, cnt, tmp, 65536);
    fill_quantised(cent, (size_t)nclust * nfeat, tmp, 65536);
    XAPP_TIME_REGION(best, kmeans_assign(npoints, nfeat, nclust, feat, cent, member));
    xapp_report(best, xapp_checksum_int(member, npoints));
    free(feat); free(cent); free(member); free(tmp);
    return 0;
}
