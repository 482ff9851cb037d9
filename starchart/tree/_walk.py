"""Routing rows down fitted trees: the leaf each row reaches, compiled or level by level in numpy.

:meth:`StarchartTree.apply <starchart.tree.StarchartTree.apply>` and the forest's predictions send each row
from the root to a leaf. NumPy can only do it one level at a time for all rows (a fancy-indexing pass per
level, allocating as it goes); the compiled walk takes one row down at a time, 3-4× faster on 200,000 rows.
The compiled kernel is used once this process has compiled (or loaded) the tree kernels anyway, or when the
rows are many enough to pay for loading it; a first small prediction in a fresh process stays in numpy, as
a first small fit does (:mod:`starchart.tree._growth`).

Both walks follow the same rules:

- an ordered split sends left the rows whose value (or level position) is at most its threshold (NaN
  thresholds, as categorical splits have, send nothing left);
- a categorical split sends left the level codes it lists (``node · width + code`` in the sorted ``keys``);
- a level never seen in training (position −1) of a categorical parameter, or of an ordered parameter compared
  by position, follows the larger side of the node's training samples.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

from starchart.tree import _growth

#: Rows from which a prediction loads the compiled walk even when nothing in the process is compiled yet
#: (loading it from numba's cache costs about 0.3 s the first time in a process).
COMPILED_ROWS = 100_000


#: Kinds of node in :func:`walk`'s ``kind`` array (leaves have ``feature`` −1).
ORDERED, CATEGORICAL, BY_POSITION = 0, 1, 2


@njit(cache=True, nogil=True)
def _walk_compiled(feature: np.ndarray, threshold: np.ndarray, left: np.ndarray, right: np.ndarray,
                   kind: np.ndarray, keys: np.ndarray, width: int, majority_left: np.ndarray,
                   positions: np.ndarray, root: int, out: np.ndarray) -> None:
    for i in range(positions.shape[0]):
        node = root
        f = feature[node]
        while f >= 0:
            value = positions[i, f]
            k = kind[node]
            if k == 0:  # ORDERED, by far the commonest: tested first
                go_left = value <= threshold[node]
            elif k == 1:  # CATEGORICAL
                if value < 0:
                    go_left = majority_left[node]
                else:
                    key = node * width + np.int64(value)
                    at = np.searchsorted(keys, key)
                    go_left = at < keys.size and keys[at] == key
            else:  # BY_POSITION
                go_left = majority_left[node] if value < 0 else value <= threshold[node]
            node = left[node] if go_left else right[node]
            f = feature[node]
        out[i] = node


def _walk_numpy(feature: np.ndarray, threshold: np.ndarray, left: np.ndarray, right: np.ndarray,
                kind: np.ndarray, keys: np.ndarray, width: int, majority_left: np.ndarray,
                positions: np.ndarray, root: int, out: np.ndarray) -> None:
    out[:] = root
    rows = np.arange(len(positions))
    while rows.size:
        node = out[rows]
        f = feature[node]
        inner = f >= 0
        rows, node, f = rows[inner], node[inner], f[inner]
        value = positions[rows, f]
        with np.errstate(invalid="ignore"):  # categorical splits have no threshold (NaN)
            go_left = value <= threshold[node]
        cat = kind[node] == CATEGORICAL
        if cat.any():
            wanted = node[cat] * width + value[cat].astype(np.int64)
            at = np.minimum(np.searchsorted(keys, wanted), max(len(keys) - 1, 0))
            go_left[cat] = keys[at] == wanted if len(keys) else False
        unseen = (value < 0) & (kind[node] != ORDERED)
        go_left[unseen] = majority_left[node[unseen]]
        out[rows] = np.where(go_left, left[node], right[node])


def _choose(compiled: Any, interpreted: Callable[..., None], walks: int) -> Callable[..., None]:
    """The compiled walk once this process has loaded compiled tree code, or for ``walks`` row-tree walks
    enough to pay for loading it; else the numpy one (the module docstring says why)."""
    loaded = bool(compiled.signatures) or bool(_growth._grow_kernel.signatures)
    return compiled if loaded or walks >= COMPILED_ROWS else interpreted


def walk(arrays: tuple[Any, ...], positions: np.ndarray, root: int = 0) -> np.ndarray:
    """The node each row of ``positions`` reaches from ``root`` (see the module docstring); ``arrays``:
    ``(feature, threshold, left, right, kind, keys, width, majority_left)``, ``kind`` one of
    :data:`ORDERED`, :data:`CATEGORICAL`, :data:`BY_POSITION` per node."""
    out = np.empty(len(positions), dtype=np.int64)
    positions = np.asarray(positions, dtype=np.float64)  # either layout: a frame's values come column-major
    kernel = _choose(_walk_compiled, _walk_numpy, len(positions))
    kernel(*arrays, positions, root, out)
    return out


@njit(cache=True, nogil=True)
def _walk_packed_compiled(roots: np.ndarray, feature: np.ndarray, threshold: np.ndarray, left: np.ndarray,
                          right: np.ndarray, cat_row: np.ndarray, cat_left: np.ndarray, positions: np.ndarray,
                          out: np.ndarray) -> None:
    for t in range(roots.size):
        for i in range(positions.shape[0]):
            node = roots[t]
            while feature[node] >= 0:
                value = positions[i, feature[node]]
                row = cat_row[node]
                if row >= 0:  # column 0: a level never seen in training
                    go_left = cat_left[row, np.int64(value) + 1]
                else:
                    go_left = value <= threshold[node]
                node = left[node] if go_left else right[node]
            out[t, i] = node


def _walk_packed_numpy(roots: np.ndarray, feature: np.ndarray, threshold: np.ndarray, left: np.ndarray,
                       right: np.ndarray, cat_row: np.ndarray, cat_left: np.ndarray, positions: np.ndarray,
                       out: np.ndarray) -> None:
    n = len(positions)
    at = out.reshape(-1)
    at[:] = np.repeat(roots, n)
    active = np.arange(at.size)
    while active.size:
        node = at[active]
        f = feature[node]
        inner = f >= 0
        active, node, f = active[inner], node[inner], f[inner]
        value = positions[active % n, f]
        with np.errstate(invalid="ignore"):
            go_left = value <= threshold[node]
        row = cat_row[node]
        cat = row >= 0
        if cat.any():
            go_left[cat] = cat_left[row[cat], value[cat].astype(np.int64) + 1]
        at[active] = np.where(go_left, left[node], right[node])


def walk_packed(roots: np.ndarray, feature: np.ndarray, threshold: np.ndarray, left: np.ndarray,
                right: np.ndarray, cat_row: np.ndarray, cat_left: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """The node each row reaches in each of several trees stored end to end (a forest), shape
    ``(n_trees, n_rows)``: each tree starts at its entry of ``roots``, and a categorical split (or an ordered
    one compared by position) looks its level up in its row ``cat_row`` of the table ``cat_left``, whose column
    0 stands for a level never seen in training."""
    positions = np.ascontiguousarray(positions, dtype=np.float64)
    out = np.empty((len(roots), len(positions)), dtype=np.int64)
    kernel = _choose(_walk_packed_compiled, _walk_packed_numpy, out.size)
    kernel(roots, feature, threshold, left, right, cat_row, cat_left, positions, out)
    return out
