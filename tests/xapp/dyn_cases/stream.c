/* Stream copy b[i] = a[i]: stride 1, every window of 32 floats is one 128 B transaction. */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 16)
static float a[N] __attribute__((aligned(4096)));
static float b[N] __attribute__((aligned(4096)));

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  if (n < 1 || n > N) return 2;
  for (int i = 0; i < n; i++)
    a[i] = (float)i;
#pragma xapp parallel
  for (int i = 0; i < n; i++)
    b[i] = a[i];
  printf("%f\n", b[n - 1]);
  return 0;
}
