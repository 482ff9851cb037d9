/* Two branches of known pattern in one loop: `i & 1` alternates (every window of decisions
 * diverges), `x[i] >= 0` is always taken (no window diverges).  One-armed ifs with a store:
 * -O1 cannot turn them into selects, so the branches stay branches. */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 16)
static float x[N], odd[N], pos[N];

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  if (n < 1 || n > N) return 2;
  for (int i = 0; i < n; i++)
    x[i] = (float)i;
#pragma xapp parallel
  for (int i = 0; i < n; i++) {
    if (i & 1)
      odd[i] = x[i] * 3.0f;
    if (x[i] >= 0.0f)
      pos[i] = x[i];
  }
  printf("%f %f\n", odd[n / 2 + 1], pos[n / 2]);
  return 0;
}
