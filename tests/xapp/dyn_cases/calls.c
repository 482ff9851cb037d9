/* A dependent chain that runs through a function the optimiser may not inline: the value
 * flows caller -> argument -> callee -> return -> caller, so the ILP stays near 1 only if
 * the runtime follows values across calls. A switch and a recursive helper exercise the
 * other paths of the instrumentation. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static float step(float x, float a) {
  float y = x * a;
  y = y + 0.25f;
  y = y * a;
  return y - 0.125f;
}

__attribute__((noinline)) static int depth(int k) { return k <= 0 ? 0 : 1 + depth(k - 1); }

static int hist[4];

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  volatile float va = 0.5f;
  float a = va, x = 1.0f;
  int total = 0;
#pragma xapp parallel
  for (int i = 0; i < n; i++) {
    x = step(x, a);
    switch (i % 4) {
    case 0: hist[0] += 1; break;
    case 1: hist[1] += 2; break;
    case 2: hist[2] += 3; break;
    default: total += depth(3); break;
    }
  }
  printf("%f %d %d %d %d\n", x, total, hist[0], hist[1], hist[2]);
  return 0;
}
