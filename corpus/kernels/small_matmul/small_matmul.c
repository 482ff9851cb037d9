/* small_matmul: `steps` chained products P <- P A of small n x n matrices (a Markov chain's
 * distribution over `steps` transitions, both matrices row-stochastic so values stay bounded).
 * Each product needs the previous one: a serial chain of small parallel steps, i.e. many tiny
 * launches on a GPU (category: gpu-hostile). */
#include "../../harness/xapp_harness.h"

/* Row-stochastic random matrix (shared by copy with the .cu side). */
static void make_stochastic(int n, float *m) {
    xapp_fill_float(m, (size_t)n * n, 0.0f, 1.0f);
    for (int i = 0; i < n; i++) {
        float s = 0.0f;
        for (int j = 0; j < n; j++) s += m[i * n + j];
        for (int j = 0; j < n; j++) m[i * n + j] /= s;
    }
}

/* Runs `steps` products from p0 (left unchanged), alternating between buf0 and buf1;
 * returns the buffer holding the last product. Each product runs in i-k-j order: row i of the
 * result accumulates src[i][k] * (row k of A), so the inner loop walks rows contiguously (and
 * vectorises); every element still sums its products in ascending k. The band is the row loop. */
float *small_matmul(int n, int steps, const float *restrict a, const float *restrict p0,
                    float *restrict buf0, float *restrict buf1) {
    const float *src = p0;
    float *dst = buf0;
#pragma xapp trip(1000)
    for (int s = 0; s < steps; s++) {
        dst = (s & 1) ? buf1 : buf0;
#pragma xapp parallel trip(64)
        for (int i = 0; i < n; i++) {
            float *restrict di = dst + (long)i * n;
            const float *restrict si = src + (long)i * n;
#pragma xapp trip(64)
            for (int j = 0; j < n; j++) di[j] = 0.0f;
#pragma xapp trip(64)
            for (int k = 0; k < n; k++) {
                float sik = si[k];
                const float *restrict ak = a + (long)k * n;
#pragma xapp trip(64)
                for (int j = 0; j < n; j++) di[j] += sik * ak[j];
            }
        }
        src = dst;
    }
    return dst;
}

int main(int argc, char **argv) {
    int n = (int)xapp_arg(argc, argv, 1, 64);
    int steps = (int)xapp_arg(argc, argv, 2, 1000);
    size_t bytes = (size_t)n * n * sizeof(float);
    float *a = (float *)xapp_alloc(bytes), *p0 = (float *)xapp_alloc(bytes);
    float *buf0 = (float *)xapp_alloc(bytes), *buf1 = (float *)xapp_alloc(bytes);
    xapp_seed(30);
    make_stochastic(n, a);
    make_stochastic(n, p0);
    float *result = buf0;
    double best = INFINITY;
    for (int r = 0; r < xapp_repeats(); r++) {
        double t0 = xapp_now();
        result = small_matmul(n, steps, a, p0, buf0, buf1);
        double t = xapp_now() - t0;
        if (t < best) best = t;
    }
    xapp_report(best, xapp_checksum_float(result, (size_t)n * n));
    free(a); free(p0); free(buf0); free(buf1);
    return 0;
}
