/* Stream copy b[i] = a[i] (as stream.c) after a call to a header's loop on line 10 too. */
#include <stdio.h>
#include <stdlib.h>
#include "hdrloop.h"
static float a[1 << 16] __attribute__((aligned(4096))), b[1 << 16] __attribute__((aligned(4096)));
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  if (n < 1 || n > (1 << 16)) return 2; fill(a, n); /* the header's loop, before the band */
#pragma xapp parallel
  for (int i = 0; i < n; i++)
    b[i] = a[i];
  printf("%f\n", b[n - 1]);
  return 0;
}
