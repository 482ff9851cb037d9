/* Two loops for the ILP features, measured one at a time with band_line:
 * `chain` does 16 dependent multiply-adds per iteration (ILP close to 1),
 * `independent` does one multiply-add on each of 8 independent accumulators (ILP ~ 11). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  volatile float va = 0.999f, vc = 0.001f; /* volatile: the optimiser cannot fold the loops */
  float a = va, c = vc;
  float x = 1.0f;
  for (int i = 0; i < n; i++) { /* chain */
    x = x * a + c; x = x * a + c; x = x * a + c; x = x * a + c;
    x = x * a + c; x = x * a + c; x = x * a + c; x = x * a + c;
    x = x * a + c; x = x * a + c; x = x * a + c; x = x * a + c;
    x = x * a + c; x = x * a + c; x = x * a + c; x = x * a + c;
  }
  float y0 = 0, y1 = 1, y2 = 2, y3 = 3, y4 = 4, y5 = 5, y6 = 6, y7 = 7;
  for (int i = 0; i < n; i++) { /* independent */
    y0 = y0 * a + c; y1 = y1 * a + c; y2 = y2 * a + c; y3 = y3 * a + c;
    y4 = y4 * a + c; y5 = y5 * a + c; y6 = y6 * a + c; y7 = y7 * a + c;
  }
  printf("%f %f\n", x, y0 + y1 + y2 + y3 + y4 + y5 + y6 + y7);
  return 0;
}
