/* The thesis's case study I (particle filter, Rodinia): for each particle, a linear search of
 * the CDF for the first entry >= u[j] -- data-dependent trip counts and an early exit. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int np = argc > 1 ? atoi(argv[1]) : 1000;
  if (np < 1 || np > 1000000) return 2;
  double *CDF = malloc(sizeof(double) * np), *u = malloc(sizeof(double) * np);
  double *arrayX = malloc(sizeof(double) * np), *arrayY = malloc(sizeof(double) * np);
  double *xj = malloc(sizeof(double) * np), *yj = malloc(sizeof(double) * np);
  if (!CDF || !u || !arrayX || !arrayY || !xj || !yj) return 3;
  srand(7);
  double acc = 0;
  for (int x = 0; x < np; x++) {
    acc += (double)rand() / RAND_MAX;
    CDF[x] = acc;
    arrayX[x] = x * 0.5;
    arrayY[x] = x * 0.25;
  }
  for (int x = 0; x < np; x++)
    CDF[x] /= acc;
  double u1 = (double)rand() / RAND_MAX / np;
  for (int j = 0; j < np; j++)
    u[j] = u1 + j / (double)np;
  int i;
#pragma xapp parallel
  for (int j = 0; j < np; j++) {
    int index = -1;
    for (int x = 0; x < np; x++) {
      if (CDF[x] >= u[j]) {
        index = x;
        break;
      }
    }
    if (index == -1)
      i = np - 1;
    else
      i = index;
    xj[j] = arrayX[i];
    yj[j] = arrayY[i];
  }
  printf("%f %f\n", xj[np / 2], yj[np - 1]);
  free(CDF); free(u); free(arrayX); free(arrayY); free(xj); free(yj);
  return 0;
}
