/* srad_update: the second kernel of SRAD (as in Rodinia srad): the divergence of the diffusion
 * coefficient times the neighbour differences, D = c[i][j] (dN + dW) + c[i+1][j] dS + c[i][j+1] dE
 * (the south and east coefficients replicated at the border), and the image update
 * J' = J + lambda/4 D. Six input arrays and one output per pixel, a few flops: bandwidth-bound
 * (category: application). The inputs (image, coefficients, differences) are generated. */
#include "../../harness/xapp_harness.h"

#define LAMBDA 0.5f

/* One pixel; cs and ce are the south and east coefficients. */
static inline float update(float j0, float cc, float cs, float ce, float n, float s, float w, float e) {
    float d = cc * n + cs * s + cc * w + ce * e;
    return j0 + 0.25f * LAMBDA * d;
}

/* Row by row; the row below comes from a row pointer clamped once per row, the last column (whose
 * east neighbour is itself) is peeled off so the interior loop is plain unit stride. */
void srad_update(long rows, long cols, const float *restrict J, const float *restrict c,
                 const float *restrict dN, const float *restrict dS, const float *restrict dW,
                 const float *restrict dE, float *restrict Jout) {
#pragma xapp parallel(2) trip(4096)
    for (long i = 0; i < rows; i++) {
        long o = i * cols;
        const float *restrict cc = c + o;
        const float *restrict cs = c + (i < rows - 1 ? i + 1 : rows - 1) * cols;
#pragma xapp trip(4095)
        for (long j = 0; j < cols - 1; j++)
            Jout[o + j] = update(J[o + j], cc[j], cs[j], cc[j + 1], dN[o + j], dS[o + j], dW[o + j], dE[o + j]);
        long l = cols - 1;
        Jout[o + l] = update(J[o + l], cc[l], cs[l], cc[l], dN[o + l], dS[o + l], dW[o + l], dE[o + l]);
    }
}

int main(int argc, char **argv) {
    long rows = xapp_arg(argc, argv, 1, 4096), cols = xapp_arg(argc, argv, 2, 4096);
    size_t cnt = (size_t)rows * cols, bytes = cnt * sizeof(float);
    float *J = (float *)xapp_alloc(bytes), *c = (float *)xapp_alloc(bytes);
    float *dN = (float *)xapp_alloc(bytes), *dS = (float *)xapp_alloc(bytes);
    float *dW = (float *)xapp_alloc(bytes), *dE = (float *)xapp_alloc(bytes), *Jout = (float *)xapp_alloc(bytes);
    xapp_seed(404);
    xapp_fill_float(J, cnt, 1.0f, 2.7f);
    xapp_fill_float(c, cnt, 0.0f, 1.0f);
    xapp_fill_float(dN, cnt, -0.8f, 0.8f);
    xapp_fill_float(dS, cnt, -0.8f, 0.8f);
    xapp_fill_float(dW, cnt, -0.8f, 0.8f);
    xapp_fill_float(dE, cnt, -0.8f, 0.8f);
    XAPP_TIME_REGION(best, srad_update(rows, cols, J, c, dN, dS, dW, dE, Jout));
    xapp_report(best, xapp_checksum_float(Jout, cnt));
    free(J); free(c); free(dN); free(dS); free(dW); free(dE); free(Jout);
    return 0;
}
