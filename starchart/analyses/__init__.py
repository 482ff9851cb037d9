"""The paper's analyses of measured spaces: how many samples a tree needs (§VI-A), platforms (§VII-B),
input sensitivity (§VII-C), power against performance (§VII-D), and throughput across input sizes."""
