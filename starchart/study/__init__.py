"""Studies: the results store, runs that sample, evaluate and store, and their execution
(serial, local worker processes, or Ray).

- :class:`~starchart.study.store.Store`: one SQLite file per study, written as results arrive;
- :func:`~starchart.study.runner.run`: sample a space, measure, store, with progress; resumable.
"""
