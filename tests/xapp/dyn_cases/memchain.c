/* A recurrence through memory: b[i] = b[prev[i]] + a[i] with prev[i] == i - 1, known only at
 * run time (so the optimiser cannot forward the stored value in a register). Each
 * iteration's load of b reads the previous iteration's store: the critical path grows by
 * load -> fadd -> store (3 instructions) per iteration. Without memory dependences the ILP
 * would be far higher. */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 16)
static float a[N], b[N];
static int prev[N];

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  if (n < 2 || n > N) return 2;
  for (int i = 0; i < n; i++) {
    a[i] = (float)(i % 3);
    prev[i] = i - 1;
  }
#pragma xapp parallel
  for (int i = 1; i < n; i++)
    b[i] = b[prev[i]] + a[i];
  printf("%f\n", b[n - 1]);
  return 0;
}
