"""The kinds of study a store can hold: how each is recognised, started, and continued.

A store is one SQLite file whatever made it. What kind of study it holds is told by what that study
recorded: ``starchart resume`` and the runner's messages ask :func:`study_kind` instead of probing the
keys themselves. Each kind's settings are a typed record (:mod:`starchart.study.records`).

==============  ===================================  ==============================================
kind            recognised by                        continued by
==============  ===================================  ==============================================
``msp``         a session recorded by ``tune_at_msp``  running its ``starchart msp`` command again
``search``      the ``search`` settings               :func:`starchart.strategies.search.resume_search`
``sample_size`` the ``sample_size`` settings          :func:`starchart.analyses.sample_size.resume_sample_size`
``uniform``     a plan or measurements, nothing else  :func:`starchart.study.runner.run` with the store
==============  ===================================  ==============================================

A package adds a kind with :func:`register_study_kind`; kinds registered later are asked first.

>>> from starchart.study.store import Store
>>> with Store.open(None) as db:
...     db.put("search", {"budget": 10, "seed": 1})
...     study_kind(db).name, study_kind(db).started_by
('search', 'search(evaluator, space, budget, store=...)')
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from starchart.study.records import PlanRecord, SampleSizeRecord, SearchRecord
from starchart.study.store import Store


@dataclass(frozen=True)
class StudyKind:
    """One kind of study.

    Attributes
    ----------
    name:
        Its name (``search``).
    title:
        How messages call it (``a search``).
    started_by:
        The Python call that starts one (for messages that ask to pass the space again).
    recognise:
        Whether a store holds this kind of study.
    """

    name: str
    title: str
    started_by: str
    recognise: Callable[[Store], bool]


def _has(key: str) -> Callable[[Store], bool]:
    return lambda store: bool(store.get(key))


def _msp_sessions(store: Store) -> bool:
    return any(session.get("msp") for session in store.get("sessions", []))


def _uniform(store: Store) -> bool:
    return store.get(PlanRecord.KEY) is not None or len(store) > 0


#: The kinds, in the order a store is asked: the first whose ``recognise`` says yes is its kind.
KINDS: list[StudyKind] = [
    StudyKind("msp", "a minimum-saturation-point study (starchart msp)", "tune_at_msp(..., store=...)", _msp_sessions),
    StudyKind("search", "a search", "search(evaluator, space, budget, store=...)", _has(SearchRecord.KEY)),
    StudyKind("sample_size", "a sample-size study", "choose_sample_size(space, evaluator, store=...)",
              _has(SampleSizeRecord.KEY)),
    StudyKind("uniform", "a uniform study", "run(space, ..., store=...)", _uniform),
]


def register_study_kind(kind: StudyKind) -> StudyKind:
    """Add ``kind``, asked before the built-in ones (a plug-in's study may also hold a plan)."""
    KINDS.insert(0, kind)
    return kind


def study_kind(store: Store) -> StudyKind | None:
    """The kind of study ``store`` holds; ``None`` when it holds no study yet (nothing planned or measured)."""
    return next((kind for kind in KINDS if kind.recognise(store)), None)


def kind_named(name: str) -> StudyKind:
    """The kind called ``name``."""
    return next(kind for kind in KINDS if kind.name == name)
