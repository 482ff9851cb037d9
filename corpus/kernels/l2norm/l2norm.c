/* l2norm: Euclidean norm sqrt(sum x[i]^2) of a double vector (category: reduction). */
#include "../../harness/xapp_harness.h"

double l2norm(long n, const double *restrict x) {
    double sum = 0.0;
#pragma xapp parallel trip(50331648)
    for (long i = 0; i < n; i++) {
        sum += x[i] * x[i];
    }
    return sqrt(sum);
}

int main(int argc, char **argv) {
    long n = xapp_arg(argc, argv, 1, 3L << 24);
    double *x = xapp_alloc(n * sizeof(double));
    xapp_seed(11);
    xapp_fill_double(x, n, -1.0, 1.0);
    double result = 0.0;
    XAPP_TIME_REGION(best, result = l2norm(n, x));
    xapp_report(best, result);
    free(x);
    return 0;
}
