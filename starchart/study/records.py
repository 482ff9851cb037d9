"""Typed records of what a study recorded in its store: the settings of a search, of a sample-size study,
and the plan of a uniform run.

A store keeps each as one JSON object under a key (``search``, ``sample_size``, ``plan``). The records
read and write exactly those objects, so stores made before them read the same and are written the same:
a field with a default that was never written (a search's ``workers``, its ``strategy``) is written only
when it differs from the default, and keys a record does not know are kept as they were.

>>> from starchart.study.store import Store
>>> with Store.open(None) as db:
...     SearchRecord(budget=10, seed=1, objective="time", minimize=True).write(db)
...     db.get("search"), SearchRecord.read(db).strategy
({'budget': 10, 'seed': 1, 'objective': 'time', 'minimize': True, 'prior': None}, 'tree')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields, replace
from typing import Any, ClassVar, TypeVar

from starchart.errors import InputError
from starchart.study.store import Store, with_earlier

__all__ = ["GIVEN_TABLE", "PlanRecord", "SampleSizeRecord", "SearchRecord", "StudyRecord"]

R = TypeVar("R", bound="StudyRecord")


@dataclass(frozen=True)
class StudyRecord:
    """Base of the records: one JSON object under :attr:`KEY` in a store.

    ``earlier`` holds the settings the store was used with before (see
    :func:`~starchart.study.store.with_earlier`); ``extra`` any key this version does not know.
    """

    KEY: ClassVar[str] = ""
    #: Fields written only when they differ from their default (absent from stores that predate them).
    OPTIONAL: ClassVar[frozenset[str]] = frozenset()

    earlier: list[dict[str, Any]] = field(default_factory=list, kw_only=True)
    extra: dict[str, Any] = field(default_factory=dict, kw_only=True)

    @classmethod
    def from_json(cls: type[R], data: Mapping[str, Any], where: str = "store") -> R:
        """The record of a stored object; a required key it lacks is a clear error."""
        if not isinstance(data, Mapping):
            raise InputError(f"the stored {cls.KEY!r} settings are a {type(data).__name__}, not an object",
                             where=where, hint="the store was changed by hand or by another program; start a new "
                                               "store")
        known = {f.name for f in fields(cls)} - {"extra"}
        missing = [f.name for f in fields(cls)
                   if f.default is MISSING and f.default_factory is MISSING and f.name not in data]
        if missing:
            raise InputError(f"the stored {cls.KEY!r} settings lack {', '.join(missing)}", where=where,
                             hint="the store was changed by hand or by another program; start a new store")
        given = {k: v for k, v in data.items() if k in known}
        return cls(**given, extra={k: v for k, v in data.items() if k not in known})

    def to_json(self) -> dict[str, Any]:
        """The object the store keeps (the same keys as the stores written before these records)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in ("earlier", "extra"):
                continue
            if f.name in self.OPTIONAL and value == (f.default if f.default is not MISSING else None):
                continue
            out[f.name] = value
        out.update(self.extra)
        if self.earlier:
            out["earlier"] = self.earlier
        return out

    @classmethod
    def read(cls: type[R], store: Store) -> R | None:
        """The record ``store`` holds, or ``None``."""
        data = store.get(cls.KEY)
        return cls.from_json(data, where=str(store.path or "store")) if data else None

    def write(self, store: Store) -> None:
        store.put(self.KEY, self.to_json())

    def after(self: R, recorded: StudyRecord | None) -> R:
        """This record in place of ``recorded``, keeping every different earlier setting (``earlier``)."""
        if recorded is None:
            return self
        merged = with_earlier(self.settings(), recorded.to_json())
        return replace(self, earlier=list(merged.get("earlier", [])))

    def settings(self) -> dict[str, Any]:
        """The settings alone: :meth:`to_json` without ``earlier``."""
        return {k: v for k, v in self.to_json().items() if k != "earlier"}


@dataclass(frozen=True)
class SearchRecord(StudyRecord):
    """What :func:`~starchart.strategies.search.search` recorded: enough to resume it identically."""

    KEY: ClassVar[str] = "search"
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"workers", "strategy", "static"})

    budget: int
    seed: int
    objective: str
    minimize: bool
    prior: str | None = None
    #: proposals come in batches of this size: a resume needs it to propose the same ones
    workers: int = 1
    strategy: str = "tree"
    #: the static metrics the search was told: a file's absolute path, or :data:`GIVEN_TABLE`
    static: str | None = None


#: What a search records of static metrics given as a table in memory (a resume must be given them again).
GIVEN_TABLE = "a table given in memory"


@dataclass(frozen=True)
class SampleSizeRecord(StudyRecord):
    """What :func:`~starchart.analyses.sample_size.choose_sample_size` recorded."""

    KEY: ClassVar[str] = "sample_size"

    validation: int
    start: int
    growth: float | list[int]
    target: float
    budget: int
    seed: int
    metric: str
    tree_options: dict[str, Any] = field(default_factory=dict)

    def arguments(self) -> dict[str, Any]:
        """The keyword arguments of ``choose_sample_size`` that continue this study."""
        return {**{f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("earlier", "extra")},
                **self.extra}


@dataclass(frozen=True)
class PlanRecord(StudyRecord):
    """What a uniform :func:`~starchart.study.runner.run` plans to measure: a sample (``samples`` drawn
    with ``seed``) or given configurations (``configs``)."""

    KEY: ClassVar[str] = "plan"
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"samples", "seed", "configs"})

    samples: int | None = None
    seed: int | None = None
    configs: list[dict[str, Any]] | None = None
