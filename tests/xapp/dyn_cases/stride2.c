/* b[i] = a[2 * i]: the load strides 8 B (2 banks apart, 2 transactions per 32 instances),
 * the store strides 4 B (one transaction). */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 16)
static float a[2 * N] __attribute__((aligned(4096)));
static float b[N] __attribute__((aligned(4096)));

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  if (n < 1 || n > N) return 2;
  for (int i = 0; i < 2 * n; i++)
    a[i] = (float)i;
#pragma xapp parallel
  for (int i = 0; i < n; i++)
    b[i] = a[2 * i];
  printf("%f\n", b[n - 1]);
  return 0;
}
