/* One sqrtf, expf and sinf per iteration (single precision) and their double twins
 * in a second loop (band_line): each transcendental is 1/5 of the fp operations. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 16)
static float a[N], b[N];
static double c[N], d[N];

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  if (n < 1 || n > N) return 2;
  for (int i = 0; i < n; i++) {
    a[i] = 1.0f + (float)i / n;
    c[i] = 1.0 + (double)i / n;
  }
#pragma xapp parallel
  for (int i = 0; i < n; i++) /* single */
    b[i] = sqrtf(a[i]) + expf(a[i]) + sinf(a[i]);
  for (int i = 0; i < n; i++) /* double */
    d[i] = sqrt(c[i]) + exp(c[i]) + sin(c[i]);
  printf("%f %f\n", b[n - 1], d[n - 1]);
  return 0;
}
