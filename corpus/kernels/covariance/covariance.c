/* covariance: covariance matrix of m features over n samples (PolyBench-style; category:
 * dense-linear-algebra). Column means and centring come first (a small O(n m) pass); the band
 * is the (i, j) nest of the O(m^2 n) product of the centred data with itself, whose inner k
 * loop walks down two columns. */
#include "../../harness/xapp_harness.h"

void covariance(long n, long m, const float *data, float *centred, float *mean, float *cov) {
    for (long j = 0; j < m; j++) {
        float sum = 0.0f;
        for (long k = 0; k < n; k++) sum += data[k * m + j];
        mean[j] = sum / (float)n;
    }
    for (long k = 0; k < n; k++)
        for (long j = 0; j < m; j++) centred[k * m + j] = data[k * m + j] - mean[j];
#pragma xapp parallel(2) trip(256)
    for (long i = 0; i < m; i++) {
#pragma xapp trip(256)
        for (long j = 0; j < m; j++) {
            float sum = 0.0f;
#pragma xapp trip(1024)
            for (long k = 0; k < n; k++) {
                sum += centred[k * m + i] * centred[k * m + j];
            }
            cov[i * m + j] = sum / (float)(n - 1);
        }
    }
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1024), m = xapp_arg(argc, argv, 2, 256);
    float *data = xapp_alloc(n * m * sizeof(float)), *centred = xapp_alloc(n * m * sizeof(float));
    float *mean = xapp_alloc(m * sizeof(float)), *cov = xapp_alloc(m * m * sizeof(float));
    xapp_seed(19);
    xapp_fill_float(data, n * m, 0.0f, 10.0f);
    XAPP_TIME_REGION(best, covariance(n, m, data, centred, mean, cov));
    xapp_report(best, xapp_checksum_float(cov, m * m));
    free(data); free(centred); free(mean); free(cov);
    return 0;
}
