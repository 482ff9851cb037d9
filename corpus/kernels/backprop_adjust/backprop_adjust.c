/* backprop_adjust: the weight adjustment of Rodinia's backprop, for the weights from a wide input
 * layer (n_in units, outputs ly) to a few hidden units with errors delta:
 *     dw[i][j] = ETA delta[j] ly[i] + MOMENTUM oldw[i][j],   w[i][j] += dw[i][j].
 * Pure streaming, a few flops per element (category: application). The new weights and weight
 * changes go to separate arrays, so every timed repeat starts from the same weights. */
#include "../../harness/xapp_harness.h"

#define ETA 0.3f
#define MOMENTUM 0.3f

/* Input-major, matching the row-per-input layout: all four matrices are walked contiguously. */
void backprop_adjust(long n_in, int n_hid, const float *restrict delta, const float *restrict ly,
                     const float *restrict w, const float *restrict oldw, float *restrict w_out,
                     float *restrict dw_out) {
#pragma xapp parallel(2) trip(2097152)
    for (long i = 0; i < n_in; i++) {
        long row = i * n_hid;
#pragma xapp trip(16)
        for (int j = 0; j < n_hid; j++) {
            float dw = ETA * delta[j] * ly[i] + MOMENTUM * oldw[row + j];
            w_out[row + j] = w[row + j] + dw;
            dw_out[row + j] = dw;
        }
    }
}

int main(int argc, char **argv) {
    long n_in = xapp_arg(argc, argv, 1, 2097152);
    int n_hid = (int)xapp_arg(argc, argv, 2, 16);
    size_t cnt = (size_t)n_in * n_hid, bytes = cnt * sizeof(float);
    float *delta = (float *)xapp_alloc(n_hid * sizeof(float)), *ly = (float *)xapp_alloc(n_in * sizeof(float));
    float *w = (float *)xapp_alloc(bytes), *oldw = (float *)xapp_alloc(bytes);
    float *w_out = (float *)xapp_alloc(bytes), *dw_out = (float *)xapp_alloc(bytes);
    xapp_seed(402);
    xapp_fill_float(delta, n_hid, -0.1f, 0.1f);
    xapp_fill_float(ly, n_in, 0.0f, 1.0f);
    xapp_fill_float(w, cnt, 0.0f, 1.0f);
    xapp_fill_float(oldw, cnt, -0.05f, 0.05f);
    XAPP_TIME_REGION(best, backprop_adjust(n_in, n_hid, delta, ly, w, oldw, w_out, dw_out));
    xapp_report(best, xapp_checksum_float(w_out, cnt) + xapp_checksum_float(dw_out, cnt));
    free(delta); free(ly); free(w); free(oldw); free(w_out); free(dw_out);
    return 0;
}
