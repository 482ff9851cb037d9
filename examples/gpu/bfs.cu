// One level of a breadth-first search, after Rodinia's bfs and Fig. 6 of the Starchart paper.
//
// Every node of the frontier visits its edges and marks each neighbour not visited yet as the
// next frontier, one level deeper. The kernel reads frontier/visited/cost and writes only
// next/cost of unvisited nodes, so repeated launches give the same result (needed for timing).
//
// Tuning parameters (Table I of the paper; defined as macros):
//   block_size_x  threads per block ("block")
//   npt           nodes processed by each thread
//   consec        1: a thread processes npt consecutive nodes; 0: nodes a block apart
//   pa_attrib     1: node attributes (first edge, degree) in parallel arrays; 0: an array of structs
//   pa_status     1: node status flags (frontier, visited, next, cost) in parallel arrays; 0: structs
// Both layouts are passed on every launch; the macros choose which the kernel reads.

struct Node {
    int start;   // index of the node's first edge in `edges`
    int degree;  // number of edges
};

struct Status {
    int frontier;  // 1: in the current frontier
    int visited;   // 1: reached in an earlier level (frontier nodes included)
    int next;      // output: 1 when reached in this level
    int cost;      // level at which the node was reached (-1: not yet)
};

extern "C" __global__ void bfs(const Node* nodes, const int* starts, const int* degrees, const int* edges,
                               Status* status, const int* frontier, const int* visited, int* next, int* cost,
                               int n) {
    const int tid = blockIdx.x * block_size_x + threadIdx.x;
    for (int i = 0; i < npt; i++) {
#if consec
        const int node = npt * tid + i;
#else
        const int node = blockIdx.x * block_size_x * npt + block_size_x * i + threadIdx.x;
#endif
        if (node >= n) continue;
#if pa_status
        if (!frontier[node]) continue;
        const int level = cost[node];
#else
        if (!status[node].frontier) continue;
        const int level = status[node].cost;
#endif
#if pa_attrib
        const int start = starts[node];
        const int degree = degrees[node];
#else
        const Node attributes = nodes[node];
        const int start = attributes.start;
        const int degree = attributes.degree;
#endif
        for (int e = start; e < start + degree; e++) {
            const int neighbour = edges[e];
#if pa_status
            if (!visited[neighbour]) {
                cost[neighbour] = level + 1;  // every writer writes the same level: a benign race
                next[neighbour] = 1;
            }
#else
            if (!status[neighbour].visited) {
                status[neighbour].cost = level + 1;
                status[neighbour].next = 1;
            }
#endif
        }
    }
}
