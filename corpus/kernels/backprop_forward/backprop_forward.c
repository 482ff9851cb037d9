/* backprop_forward: the forward pass of one layer of a neural network, as in Rodinia's backprop:
 * a very wide input layer (n_in units) feeds a few hidden units (n_hid); hidden unit j gets
 * sigmoid(bias_j + sum_i w[i][j] in[i]). The weights are stored row per input unit (w[i * n_hid + j]),
 * the products accumulated in double (category: application). The band is the (input, hidden)
 * pair: a reduction over the inputs for each hidden unit. */
#include "../../harness/xapp_harness.h"

/* Input-major, so that the weight matrix is read once, contiguously: the n_hid running sums stay
 * in L1 while every input row of weights streams past (each sum still adds its terms in input order). */
void backprop_forward(long n_in, int n_hid, const float *restrict in, const float *restrict w,
                      const float *restrict bias, double *restrict sum, float *restrict out) {
    for (int j = 0; j < n_hid; j++) sum[j] = bias[j];
#pragma xapp parallel(2) trip(6291456)
    for (long i = 0; i < n_in; i++) {
        const float *restrict wi = w + i * n_hid;
        double x = in[i];
#pragma xapp trip(16)
        for (int j = 0; j < n_hid; j++) sum[j] += (double)wi[j] * x;
    }
    for (int j = 0; j < n_hid; j++) out[j] = 1.0f / (1.0f + expf(-(float)sum[j]));
}

int main(int argc, char **argv) {
    long n_in = xapp_arg(argc, argv, 1, 6291456);
    int n_hid = (int)xapp_arg(argc, argv, 2, 16);
    float *in = (float *)xapp_alloc(n_in * sizeof(float));
    float *w = (float *)xapp_alloc((size_t)n_in * n_hid * sizeof(float));
    float *bias = (float *)xapp_alloc(n_hid * sizeof(float)), *out = (float *)xapp_alloc(n_hid * sizeof(float));
    double *sum = (double *)xapp_alloc(n_hid * sizeof(double));
    xapp_seed(401);
    xapp_fill_float(in, n_in, 0.0f, 1.0f);
    xapp_fill_float(w, (size_t)n_in * n_hid, -0.002f, 0.002f);
    xapp_fill_float(bias, n_hid, -1.0f, 1.0f);
    XAPP_TIME_REGION(best, backprop_forward(n_in, n_hid, in, w, bias, sum, out));
    xapp_report(best, xapp_checksum_float(out, n_hid));
    free(in); free(w); free(bias); free(out); free(sum);
    return 0;
}
