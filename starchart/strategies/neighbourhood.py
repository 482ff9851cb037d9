"""Is the best configuration a search found a local optimum? Its one-parameter neighbourhood.

A search that measured every valid configuration differing from its best in one parameter
has shown that no single change improves it: more budget spent next to it would find
nothing, and a better configuration, if any, differs in two parameters or more (on the
replayed convolution spaces the traps are left only by two or three changes at once:
``benchmarks/search_difficulty.py``). A search that did not says how many such
neighbours remain unmeasured — the cheapest place to look with a few more evaluations.

Examples
--------
>>> import pandas as pd
>>> from starchart.space import Space
>>> space = Space({"x": [1, 2, 3], "y": ["a", "b"]})
>>> best_neighbourhood(space, {"x": 2, "y": "a"}, pd.DataFrame({"x": [1, 2], "y": ["a", "a"]}))
Neighbourhood(size=3, measured=1)
>>> print(Neighbourhood(size=3, measured=3).describe())
all 3 configurations that differ from it in one parameter were measured: a local optimum, no single change improves it
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from starchart._util.configs import config_key, frame_keys
from starchart.space import Space

__all__ = ["Neighbourhood", "best_neighbourhood"]


@dataclass(frozen=True)
class Neighbourhood:
    """The valid configurations one parameter away from a search's best, and how many it measured.

    Attributes
    ----------
    size:
        Valid configurations that differ from the best in exactly one parameter (any other value of it).
    measured:
        How many of them the search evaluated (failed ones included).
    """

    size: int
    measured: int

    @property
    def local_optimum(self) -> bool:
        """Whether every neighbour was measured: none is better, since the best is the best measured."""
        return self.measured == self.size

    def describe(self) -> str:
        """One line for people.

        >>> print(Neighbourhood(size=34, measured=21).describe())
        21 of the 34 configurations that differ from it in one parameter were measured; 13 were not
        """
        if self.size == 0:
            return "no other valid configuration differs from it in one parameter"
        if self.local_optimum:
            return (f"all {self.size} configurations that differ from it in one parameter were measured: "
                    "a local optimum, no single change improves it")
        return (f"{self.measured} of the {self.size} configurations that differ from it in one parameter "
                f"were measured; {self.size - self.measured} were not")


def best_neighbourhood(space: Space, best: Mapping[str, Any], measured: pd.DataFrame) -> Neighbourhood:
    """The one-parameter neighbourhood of ``best`` in ``space`` (its restrictions applied), and how
    many of the ``measured`` configurations (a frame with a column per parameter, any order, repeats
    allowed) lie in it."""
    names = list(space.names)
    rows = [{**{n: best[n] for n in names}, p.name: value} for p in space.parameters for value in p.values]
    frame = pd.DataFrame(rows, columns=names)
    for n in names:  # keep each parameter's values as given (32 beside None would turn 32.0)
        frame[n] = pd.Series([row[n] for row in rows], dtype=object)
    frame = frame[space.contains(frame)]
    keys = set(frame_keys(frame, names)) - {config_key(best, names)}
    done = set(frame_keys(measured, names))
    return Neighbourhood(size=len(keys), measured=len(keys & done))
