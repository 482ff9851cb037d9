/* Naive single-precision matrix multiply C = A * B (n x n, row major): the band is the i/j
 * nest; the k loop reads A along a row (stride 1) and B down a column (stride n). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 64;
  if (n < 1 || n > 4096) return 2;
  float *A = malloc(sizeof(float) * n * n), *B = malloc(sizeof(float) * n * n);
  float *C = malloc(sizeof(float) * n * n);
  if (!A || !B || !C) return 3;
  for (int i = 0; i < n * n; i++) {
    A[i] = (float)(i % 7) - 3.0f;
    B[i] = (float)(i % 5) - 2.0f;
  }
#pragma xapp parallel(2)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      float s = 0.0f;
      for (int k = 0; k < n; k++)
        s += A[i * n + k] * B[k * n + j];
      C[i * n + j] = s;
    }
  double sum = 0;
  for (int i = 0; i < n * n; i++)
    sum += C[i];
  printf("%f\n", sum);
  free(A); free(B); free(C);
  return 0;
}
