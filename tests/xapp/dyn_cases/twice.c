/* The band lives in a function called twice; the optimiser inlines both calls into main and
 * keeps the function too, so the band loop exists in three copies. The region is entered
 * twice (n + n/2 iterations in all). */
#include <stdio.h>
#include <stdlib.h>

float a[4096], b[4096];

void kernel(int n, float s) {
#pragma xapp parallel
  for (int i = 0; i < n; i++)
    b[i] = s * a[i];
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100;
  if (n < 1 || n > 4096) return 2;
  kernel(n, 2.0f);
  kernel(n / 2, 3.0f);
  printf("%f\n", b[1]);
  return 0;
}
