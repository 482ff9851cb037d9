/* dot_product_64k: input-size variant of corpus kernel dot_product (n = 2^16); same code, other default args and trip counts. */
/* dot_product: sum of x[i]*y[i] over float vectors, accumulated in double (category: reduction). */
#include "../../harness/xapp_harness.h"

double dot_product(long n, const float *restrict x, const float *restrict y) {
    double sum = 0.0;
#pragma xapp parallel trip(65536)
    for (long i = 0; i < n; i++) {
        sum += (double)x[i] * (double)y[i];
    }
    return sum;
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 1L << 16);
    float *x = xapp_alloc(n * sizeof(float)), *y = xapp_alloc(n * sizeof(float));
    xapp_seed(10);
    xapp_fill_float(x, n, -1.0f, 1.0f);
    xapp_fill_float(y, n, -1.0f, 1.0f);
    double result = 0.0;
    XAPP_TIME_REGION(best, result = dot_product(n, x, y));
    xapp_report(best, result);
    free(x); free(y);
    return 0;
}
