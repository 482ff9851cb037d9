/* srad_diffusion: the first kernel of SRAD (speckle-reducing anisotropic diffusion, as in Rodinia
 * srad): for every pixel of an image J, the differences to its four neighbours (replicated at the
 * image border), the normalised gradient and Laplacian, the instantaneous coefficient of variation q
 * and from it the diffusion coefficient c = 1 / (1 + (q^2 - q0^2) / (q0^2 (1 + q0^2))), clamped to
 * [0, 1]. Writes c and the four differences (category: application). q0^2 comes from the image's
 * statistics, computed before the region. */
#include "../../harness/xapp_harness.h"

/* One pixel: the neighbours are jn[j], js[j], jc[w], jc[e]. */
static inline void pixel(long j, long w, long e, long o, float q0sqr, float qden, const float *restrict jc,
                         const float *restrict jn, const float *restrict js, float *restrict c,
                         float *restrict dN, float *restrict dS, float *restrict dW, float *restrict dE) {
    float jij = jc[j];
    float n = jn[j] - jij, s = js[j] - jij, we = jc[w] - jij, ea = jc[e] - jij;
    float g2 = (n * n + s * s + we * we + ea * ea) / (jij * jij);
    float l = (n + s + we + ea) / jij;
    float num = 0.5f * g2 - (1.0f / 16.0f) * (l * l);
    float den = 1.0f + 0.25f * l;
    float qsqr = num / (den * den);
    float cij = 1.0f / (1.0f + (qsqr - q0sqr) / qden);
    c[o + j] = cij < 0.0f ? 0.0f : (cij > 1.0f ? 1.0f : cij);
    dN[o + j] = n;
    dS[o + j] = s;
    dW[o + j] = we;
    dE[o + j] = ea;
}

/* Row by row: the rows above and below come from row pointers clamped once per row; the first and
 * last pixel of a row (whose left/right neighbour is replicated) are peeled off, so the interior
 * loop has plain unit-stride neighbours and vectorises. */
void srad_diffusion(long rows, long cols, float q0sqr, const float *restrict J, float *restrict c,
                    float *restrict dN, float *restrict dS, float *restrict dW, float *restrict dE) {
    float qden = q0sqr * (1.0f + q0sqr);
#pragma xapp parallel(2) trip(4096)
    for (long i = 0; i < rows; i++) {
        const float *restrict jc = J + i * cols;
        const float *restrict jn = J + (i > 0 ? i - 1 : 0) * cols;
        const float *restrict js = J + (i < rows - 1 ? i + 1 : rows - 1) * cols;
        long o = i * cols;
#pragma xapp trip(4094)
        for (long j = 1; j < cols - 1; j++) pixel(j, j - 1, j + 1, o, q0sqr, qden, jc, jn, js, c, dN, dS, dW, dE);
        pixel(0, 0, 1, o, q0sqr, qden, jc, jn, js, c, dN, dS, dW, dE);
        pixel(cols - 1, cols - 2, cols - 1, o, q0sqr, qden, jc, jn, js, c, dN, dS, dW, dE);
    }
}

/* q0^2 = var / mean^2 of the image (in double, the same code on both sides). */
static float speckle_scale(const float *J, size_t cnt) {
    double sum = 0.0, sum2 = 0.0;
    for (size_t k = 0; k < cnt; k++) {
        sum += J[k];
        sum2 += (double)J[k] * J[k];
    }
    double mean = sum / cnt, var = sum2 / cnt - mean * mean;
    return (float)(var / (mean * mean));
}

int main(int argc, char **argv) {
    long rows = xapp_arg(argc, argv, 1, 4096), cols = xapp_arg(argc, argv, 2, 4096);
    if (cols < 2) { fprintf(stderr, "srad_diffusion: needs at least 2 columns\n"); return 2; }
    size_t cnt = (size_t)rows * cols, bytes = cnt * sizeof(float);
    float *J = (float *)xapp_alloc(bytes), *c = (float *)xapp_alloc(bytes);
    float *dN = (float *)xapp_alloc(bytes), *dS = (float *)xapp_alloc(bytes);
    float *dW = (float *)xapp_alloc(bytes), *dE = (float *)xapp_alloc(bytes);
    xapp_seed(403);
    xapp_fill_float(J, cnt, 1.0f, 2.7f);
    float q0sqr = speckle_scale(J, cnt);
    XAPP_TIME_REGION(best, srad_diffusion(rows, cols, q0sqr, J, c, dN, dS, dW, dE));
    double checksum = xapp_checksum_float(c, cnt) + xapp_checksum_float(dN, cnt) + 2.0 * xapp_checksum_float(dS, cnt)
                      + 3.0 * xapp_checksum_float(dW, cnt) + 4.0 * xapp_checksum_float(dE, cnt);
    xapp_report(best, checksum);
    free(J); free(c); free(dN); free(dS); free(dW); free(dE);
    return 0;
}
