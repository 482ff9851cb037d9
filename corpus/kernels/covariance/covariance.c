/* covariance: covariance matrix of m features over n samples (PolyBench-style; category:
 * dense-linear-algebra). Column means and centring come first (a small O(n m) pass); the band
 * is the (i, j) nest of the O(m^2 n) product of the centred data with itself, inside a host
 * loop over the samples k, so that the C side reads rows contiguously. */
#include "../../harness/xapp_harness.h"

void covariance(long n, long m, const float *restrict data, float *restrict centred, float *restrict mean,
                float *restrict cov) {
    /* Column means, summed row by row (each column still in sample order), then centring. */
    for (long j = 0; j < m; j++) mean[j] = 0.0f;
    for (long k = 0; k < n; k++) {
        const float *restrict row = data + k * m;
        for (long j = 0; j < m; j++) mean[j] += row[j];
    }
    for (long j = 0; j < m; j++) mean[j] = mean[j] / (float)n;
    for (long k = 0; k < n; k++)
        for (long j = 0; j < m; j++) centred[k * m + j] = data[k * m + j] - mean[j];
    /* The product as a sum of outer products, sample by sample (k-i-j order): every sample's row
     * of centred data is read contiguously and cov (m x m floats, cache-resident) accumulates in
     * place; each cov[i][j] still adds its terms in sample order. The sample loop stays on the
     * host; the band is the (i, j) nest inside it. */
    for (long t = 0; t < m * m; t++) cov[t] = 0.0f;
#pragma xapp trip(1024)
    for (long k = 0; k < n; k++) {
        const float *restrict row = centred + k * m;
#pragma xapp parallel(2) trip(256)
        for (long i = 0; i < m; i++) {
#pragma xapp trip(256)
            for (long j = 0; j < m; j++) {
                cov[i * m + j] += row[i] * row[j];
            }
        }
    }
    for (long t = 0; t < m * m; t++) cov[t] = cov[t] / (float)(n - 1);
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
