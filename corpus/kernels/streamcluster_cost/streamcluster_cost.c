/* streamcluster_cost: the gain evaluation of Rodinia streamcluster (pgain): for each of ncand
 * candidate centres in turn (a host loop, one launch per candidate), every point computes its
 * weighted squared distance to the candidate; a point that would be served more cheaply adds its
 * saving to the candidate's gain (and counts as switching), any other point adds its loss to the
 * bin of the centre it is assigned to. Distances over 64 coordinates, a data-dependent branch and
 * reductions into a few bins (category: application). */
#include "../../harness/xapp_harness.h"

void streamcluster_cost(long n, int dim, int k, int ncand, const float *restrict pts, const float *restrict wt,
                        const float *restrict cost, const int *restrict assign, const int *restrict cand,
                        double *restrict gain, double *restrict lower, int *restrict nswitch) {
#pragma xapp trip(64)
    for (int c = 0; c < ncand; c++) {
        const float *restrict x = pts + (long)cand[c] * dim;
        double g = 0.0;
        int sw = 0;
        double *restrict low = lower + (long)c * k;
        for (int b = 0; b < k; b++) low[b] = 0.0;
#pragma xapp parallel trip(65536)
        for (long i = 0; i < n; i++) {
            const float *restrict p = pts + i * dim;
            float d = 0.0f;
#pragma xapp trip(64)
            for (int f = 0; f < dim; f++) {
                float t = p[f] - x[f];
                d += t * t;
            }
            float x_cost = d * wt[i];
#pragma xapp prob(0.33)
            if (x_cost < cost[i]) {
                g += cost[i] - x_cost;
                sw++;
            } else {
                low[assign[i]] += cost[i] - x_cost;
            }
        }
        gain[c] = g;
        nswitch[c] = sw;
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 65536);
    int dim = (int)xapp_arg(argc, argv, 2, 64), k = (int)xapp_arg(argc, argv, 3, 16), ncand = (int)xapp_arg(argc, argv, 4, 64);
    float *pts = (float *)xapp_alloc((size_t)n * dim * sizeof(float)), *wt = (float *)xapp_alloc(n * sizeof(float));
    float *cost = (float *)xapp_alloc(n * sizeof(float));
    int *assign = (int *)xapp_alloc(n * sizeof(int)), *cand = (int *)xapp_alloc(ncand * sizeof(int));
    double *gain = (double *)xapp_alloc(ncand * sizeof(double)), *lower = (double *)xapp_alloc((size_t)ncand * k * sizeof(double));
    int *nswitch = (int *)xapp_alloc(ncand * sizeof(int));
    xapp_seed(412);
    xapp_fill_float(pts, (size_t)n * dim, 0.0f, 1.0f);
    xapp_fill_float(wt, n, 0.5f, 1.5f);
    /* current costs: the weight times a typical squared distance (dim / 6 for uniform points), +-20% */
    xapp_fill_float(cost, n, 0.7f * dim / 6.0f, 1.1f * dim / 6.0f);
    for (long i = 0; i < n; i++) cost[i] *= wt[i];
    xapp_fill_int(assign, n, 0, k);
    xapp_fill_int(cand, ncand, 0, (int)n);
    XAPP_TIME_REGION(best, streamcluster_cost(n, dim, k, ncand, pts, wt, cost, assign, cand, gain, lower, nswitch));
    xapp_report(best, xapp_checksum_double(gain, ncand) - xapp_checksum_double(lower, (size_t)ncand * k)
                          + xapp_checksum_int(nswitch, ncand));
    free(pts); free(wt); free(cost); free(assign); free(cand); free(gain); free(lower); free(nswitch);
    return 0;
}
