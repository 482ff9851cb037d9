"""Searching a tuning space for its best configuration.

- :mod:`~starchart.strategies.engine`: the ask/tell core of the tree-guided search (codes in, codes out);
- :mod:`~starchart.strategies.search`: :func:`search` and :func:`resume_search`, stored and resumable;
- the surrogate (``model``, ``features``, ``encoding``), warm starts (``prior``) and the local-optimum
  check (``neighbourhood``).
"""
