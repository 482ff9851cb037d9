/* b[i] = 2 * a[idx[i]] with every idx[i] == 0 (known only at run time): the load of a is a
 * broadcast (stride 0), idx and b stream with stride 1. */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 16)
static float a[N] __attribute__((aligned(4096)));
static float b[N] __attribute__((aligned(4096)));
static int idx[N] __attribute__((aligned(4096)));

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  int at = argc > 2 ? atoi(argv[2]) : 0;
  if (n < 1 || n > N || at < 0 || at >= N) return 2;
  for (int i = 0; i < n; i++) {
    a[i] = (float)i;
    idx[i] = at;
  }
#pragma xapp parallel
  for (int i = 0; i < n; i++)
    b[i] = 2.0f * a[idx[i]];
  printf("%f\n", b[n - 1]);
  return 0;
}
