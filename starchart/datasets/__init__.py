"""Real measured tuning spaces, in the manner of :mod:`sklearn.datasets`.

Small sets ship with the package (``load_*``); larger ones are downloaded once, checked against their
SHA-256, into a cache folder (``fetch_*``). None was measured by this project: each record names who
made it, under which licence, and what to cite (``describe(name)``; the licence texts are installed
beside the files, in ``licenses/``).

=================================  =======  ================================================
name                               ships    what
=================================  =======  ================================================
``kmeans``                         yes      Rodinia kmeans on an AMD HD 7970, the Starchart authors' 500 designs
``convolution_A100/A4000/A6000``   yes      2D convolution, 4,362 configurations each (Kernel Tuner caches)
``gemm``                           fetch    CLBlast GEMM on an RTX 3090, 17,956 configurations
``dedispersion``                   fetch    dedispersion on an A100, 11,130 configurations
``pnpoly``                         fetch    point-in-polygon on an RTX 3090, 4,092 configurations
``ktt_convolution``                fetch    KTT convolution on an RTX 2080 Ti, with compile data and counters
=================================  =======  ================================================

Examples
--------
>>> from starchart import datasets
>>> ds = datasets.load_kmeans()
>>> len(ds), ds.params, ds.metrics
(500, ['ppb', 'tpp', 'consec'], ['runtime', 'wattage'])
>>> datasets.load_convolution("A100").ok().y("time").size
4201
>>> datasets.data_path("kmeans").name
'kmeans_hd7970.csv'
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from .._util.validation import Instances, check
from ..dataset import Dataset
from ..errors import InputError, arg
from ..io.load import load

__all__ = ["DATASETS", "DatasetRecord", "data_path", "describe", "fetch_dedispersion", "fetch_gemm",
           "fetch_ktt_convolution", "fetch_pnpoly", "get_data_home", "load_convolution", "load_kmeans", "load_named"]

#: Where the bundled files are installed.
BUNDLED = Path(__file__).parent / "data"
#: The mirror the ``fetch_*`` functions download from, by default: the benchmark hub at the commit whose
#: files were checked (a ``file://`` or ``https://`` URL in ``STARCHART_DATA_MIRROR`` replaces it).
HUB = "https://raw.githubusercontent.com/AutoTuningAssociation/benchmark_hub/8eeb99e7179e6838af95d392ac6c60cebfd8c434/"
_HUB_CITE = ("Willemsen, van Nieuwpoort, van Werkhoven: FAIR Benchmark Hub for Auto-Tuning, "
             "doi:10.5281/zenodo.15364124; Lurati et al., Bringing auto-tuning to HIP, doi:10.5281/zenodo.11617999")


@dataclass(frozen=True)
class DatasetRecord:
    """What one dataset is, where it comes from and how to cite it."""

    name: str
    file: str  #: the file's name, in the package (``bundled``) or in the cache folder
    description: str
    licence: str  #: SPDX identifier; the text is in ``licenses/`` beside the bundled files
    citation: str
    source: str  #: where the file was published (bundled) or the path below the mirror (fetched)
    bundled: bool
    sha256: str
    size: int  #: bytes


def _hub(name: str, file: str, path: str, description: str, sha256: str, size: int, bundled: bool) -> DatasetRecord:
    return DatasetRecord(name, file, description, "MIT", _HUB_CITE, path, bundled, sha256, size)


DATASETS: dict[str, DatasetRecord] = {record.name: record for record in (
    DatasetRecord(
        "kmeans", "kmeans_hd7970.csv",
        "Rodinia kmeans `swap` kernel on an AMD Radeon HD 7970: 500 uniformly sampled designs of ppb (points "
        "per block), tpp (threads per point) and consec (consecutive layout); runtime in ms, wattage in W",
        "BSD-3-Clause", "Jia, Shaw, Martonosi: Starchart: Hardware and software optimization using recursive "
        "partitioning regression trees, PACT 2013",
        "https://github.com/jiawenhao/Starchart/blob/05c8de491db33b84b2f8b60d6f1893507a92f77b/kmeans.csv", True,
        "38140254c65a75d224a85072473997f661e92e72460bd83d02d751ca72b103e3", 11601),
    *(_hub(f"convolution_{gpu}", f"convolution_{gpu}.json.gz", f"cachefiles/convolution_milo/{gpu}.json.gz",
           f"2D convolution (15x15 filter, 4096x4096 image) on an NVIDIA {label}: every configuration of the "
           "restricted space (4,362), time in ms and GFLOP/s; a Kernel Tuner cache", sha, size, True)
      for gpu, label, sha, size in (
          ("A100", "A100-PCIE-40GB", "de449bddefb42721a9c92d63b0984caeb04cc48519d58135a487e832f8196b9d", 857930),
          ("A4000", "RTX A4000", "fd773e882875902173ed50a7f9db6a28260ea25b87cf26211a7c627b94c0b8e8", 993833),
          ("A6000", "RTX A6000", "e0992a3baa24e0280f1706319145d473933157ef554df094a4357e435cb0de53", 1082942))),
    _hub("gemm", "gemm_RTX_3090.json.gz", "currently_unused/cachefiles/KernelTuner data/gemm/RTX_3090.json.gz",
         "CLBlast Xgemm on an NVIDIA GeForce RTX 3090: 17,956 configurations (every one CLBlast's restrictions "
         "allow); a Kernel Tuner cache",
         "a829d92217a8fc0477cb582a98df7496748b5b5d5bffb876db4112f3aff352c3", 3460375, False),
    _hub("dedispersion", "dedispersion_A100.json.gz", "cachefiles/dedispersion_milo/A100.json.gz",
         "radio-astronomy dedispersion on an NVIDIA A100-PCIE-40GB: 11,130 configurations, time and GB/s; "
         "a Kernel Tuner cache", "156253bd3ba2d956496bae6cb57a8601883b9820b50ad5b1b90f02ac4f8ce5fd", 3116539, False),
    _hub("pnpoly", "pnpoly_RTX_3090.json.gz", "currently_unused/cachefiles/KernelTuner data/pnpoly/RTX_3090.json.gz",
         "point-in-polygon on an NVIDIA GeForce RTX 3090: the full Cartesian space (4,092), 318 runtime "
         "failures; a Kernel Tuner cache",
         "d6f238c36dc83dde6b470f9f6488c21140ce233d345ef4fc4e0cd9763b4d3759", 513918, False),
    _hub("ktt_convolution", "KTConvolutionOutput_2080Ti.json.gz",
         "currently_unused/cachefiles/KTT data/KTConvolutionOutput_2080Ti.json.gz",
         "convolution (an older 8-parameter space) on an NVIDIA GeForce RTX 2080 Ti in KTT's output format: "
         "6,768 configurations with duration, compilation data (registers, shared memory) and 33 profiler "
         "counters", "3a87cc569a2b732e843ebb4ea3b35b784aab3ddb09289597dc40f12c4ccc5a37", 1981101, False),
)}
CONVOLUTION_GPUS = ("A100", "A4000", "A6000")


def _record(name: str) -> DatasetRecord:
    # a list or dict looked up among the names raised TypeError: unhashable type
    check("name", name, Instances(str, "a dataset's name"), hint=f"choose one of {', '.join(DATASETS)}")
    try:
        return DATASETS[name]
    except KeyError:
        raise InputError(f"no dataset named {name!r}", hint=f"choose one of {', '.join(DATASETS)}") from None


def describe(name: str) -> str:
    """What the dataset ``name`` holds, its source, licence and citation, as a few lines of text.

    >>> print(describe("kmeans").splitlines()[0])
    kmeans: Rodinia kmeans `swap` kernel on an AMD Radeon HD 7970: 500 uniformly sampled designs of ppb (points per block), tpp (threads per point) and consec (consecutive layout); runtime in ms, wattage in W
    """
    record = _record(name)
    source = _url(record)
    return "\n".join((f"{record.name}: {record.description}",
                      f"  ships with starchart: {'yes' if record.bundled else 'no, fetched on first use'}",
                      f"  source: {source}", f"  licence: {record.licence}", f"  cite: {record.citation}"))


def get_data_home(data_home: str | Path | None = None) -> Path:
    """The folder fetched datasets are cached in: ``data_home``, else ``$STARCHART_DATA``, else
    ``~/.cache/starchart`` (as :func:`sklearn.datasets.get_data_home`).

    >>> get_data_home("~/data").name
    'data'
    >>> get_data_home(5)
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: data_home: must be None or a folder's path, got 5 \
(hint: e.g. data_home='~/starchart_data', or leave it out for ~/.cache/starchart)
    """
    hint = f"e.g. {arg('data_home', repr('~/starchart_data'))}, or leave it out for ~/.cache/starchart"
    # an int or bytes reached Path() (TypeError); "" was taken as "not given"
    check("data_home", data_home, None, Instances((str, os.PathLike), "a folder's path"), hint=hint)
    if data_home is not None and not str(data_home).strip():
        raise InputError("an empty folder name", where="data_home", hint=hint)
    folder = data_home or os.environ.get("STARCHART_DATA") or Path.home() / ".cache" / "starchart"
    return Path(folder).expanduser()


def _url(record: DatasetRecord) -> str:
    """Where the file of ``record`` is published: its own URL, or its path below the mirror (the benchmark hub
    at the checked commit, or ``$STARCHART_DATA_MIRROR`` for a fetched set)."""
    if "://" in record.source:
        return record.source
    base = (None if record.bundled else os.environ.get("STARCHART_DATA_MIRROR")) or HUB
    return base.rstrip("/") + "/" + urllib.request.pathname2url(record.source).lstrip("/")


def data_path(name: str, *, data_home: str | Path | None = None, download: bool = True) -> Path:
    """The local file of dataset ``name``: the installed one for a bundled set, else the cached download
    (fetched first when it is missing and ``download`` is true).

    Raises
    ------
    InputError
        No such dataset, or a fetched one cannot be downloaded or fails its checksum (the message says
        where to put the file by hand).
    """
    record = _record(name)
    check("download", download, Instances(bool, "True or False"), hint=f"{arg('download', 'False')} only looks in the cache")
    folder = get_data_home(data_home)  # checked for a bundled set too: the argument is wrong either way
    if record.bundled:
        return BUNDLED / record.file
    target = folder / record.file
    if not target.exists():
        if not download:
            raise InputError(f"dataset {name!r} is not downloaded yet", where=target,
                             hint=f"call starchart.datasets.data_path({name!r}), or fetch it with "
                                  f"`starchart datasets {name}`")
        _download(record, target)
    return target


def _download(record: DatasetRecord, target: Path) -> None:
    url = _url(record)
    hint = (f"check the network, or download {url} by hand to {target} (or point STARCHART_DATA_MIRROR at a "
            "copy of the benchmark hub)")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the data folder: {exc.strerror}", where=target.parent,
                         hint="set STARCHART_DATA to a folder you can write") from None
    digest = hashlib.sha256()
    with tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{record.file}.", delete=False) as part:
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                while chunk := response.read(1 << 20):
                    digest.update(chunk)
                    part.write(chunk)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            part.close()
            os.unlink(part.name)
            reason = getattr(exc, "reason", None) or exc
            raise InputError(f"could not download dataset {record.name!r} from {url}: {reason}",
                             hint=hint) from None
    if digest.hexdigest() != record.sha256:
        os.unlink(part.name)
        raise InputError(f"the download of dataset {record.name!r} from {url} is not the published file "
                         f"(SHA-256 {digest.hexdigest()[:16]}…, expected {record.sha256[:16]}…)", hint=hint)
    shutil.move(part.name, target)  # whole or not at all: a broken download never sits under the final name


def load_named(name: str, *, data_home: str | Path | None = None) -> Dataset:
    """The dataset ``name`` (any of :data:`DATASETS`), loaded; fetched ones are downloaded on first use."""
    return load(data_path(name, data_home=data_home))


def load_kmeans() -> Dataset:
    """The Starchart authors' own sample: 500 designs of Rodinia's kmeans on an AMD Radeon HD 7970.

    Parameters ``ppb``, ``tpp``, ``consec``; metrics ``runtime`` (ms) and ``wattage`` (W). BSD-3-Clause,
    from github.com/jiawenhao/Starchart; cite Jia, Shaw & Martonosi, PACT 2013.

    >>> bool(load_kmeans().y("runtime").min() > 0), load_kmeans().meta["units"]
    (True, {'runtime': 'ms', 'wattage': 'W'})
    """
    dataset = load_named("kmeans")
    dataset.meta["units"] = {"runtime": "ms", "wattage": "W"}  # as its record says: a CSV states no units
    return dataset


def load_convolution(gpu: str = "A100") -> Dataset:
    """Every configuration (4,362) of a 2D convolution kernel measured on one GPU: ``"A100"``, ``"A4000"``
    or ``"A6000"``. Kernel Tuner caches from the benchmark hub (MIT); time in ms and GFLOP/s.

    >>> load_convolution("A4000").meta.get("device_name")
    'NVIDIA RTX A4000'
    """
    if gpu not in CONVOLUTION_GPUS:
        raise InputError(f"gpu={gpu!r}: no convolution measurements of that GPU ship with starchart",
                         hint=f"choose one of {', '.join(CONVOLUTION_GPUS)}")
    return load_named(f"convolution_{gpu}")


def fetch_gemm(*, data_home: str | Path | None = None) -> Dataset:
    """CLBlast's GEMM on an RTX 3090, 17,956 configurations (3.5 MB, downloaded once; MIT)."""
    return load_named("gemm", data_home=data_home)


def fetch_dedispersion(*, data_home: str | Path | None = None) -> Dataset:
    """Dedispersion on an A100, 11,130 configurations (3.1 MB, downloaded once; MIT)."""
    return load_named("dedispersion", data_home=data_home)


def fetch_pnpoly(*, data_home: str | Path | None = None) -> Dataset:
    """Point-in-polygon on an RTX 3090, 4,092 configurations with 318 failures (0.5 MB, downloaded once; MIT)."""
    return load_named("pnpoly", data_home=data_home)


def fetch_ktt_convolution(*, data_home: str | Path | None = None) -> Dataset:
    """KTT's convolution output on an RTX 2080 Ti, with registers, shared memory and 33 counters (1.9 MB; MIT)."""
    return load_named("ktt_convolution", data_home=data_home)
