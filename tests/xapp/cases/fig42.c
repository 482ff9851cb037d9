/* The thesis's Figure 4.2 (binary-tree search), with its annotations. */
int search(int num_elements, int depth, const int *tree) {
    int found = 0;
#pragma parallel XAPP (1048576)
    for (int i = 0; i < num_elements; i++) {
        int key = i, j = 0;
        if (key == tree[0]) {
            found++;
            continue;
        }
#pragma XAPP(16)
        for (j = 0; j < depth - 1; j++) {
            j = (j * 2) + 1 + (key > tree[j]);
            if (key == tree[j]) {
                found++;
                break;
            }
        }
    }
    return found;
}
