"""Opening user files: plain or gzip text, with errors that name the file."""

from __future__ import annotations

import json
import os
import tempfile
import zlib
from pathlib import Path
from typing import Any

from starchart._util.validation import Instances, check
from starchart.errors import InputError


def read_text(path: str | Path) -> str:
    """Return the text of ``path``, transparently un-gzipping gzip data (recognised by its first
    bytes, whatever the file's name).

    Raises :class:`InputError` naming the file when it is missing, unreadable or empty, or when its gzip
    data is cut off before its end (:func:`cut_off`): read in part, a table lost rows and a space file its
    restrictions without a word.

    Examples
    --------
    >>> import gzip, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "x.txt"); _ = open(p, "w").write("hi")
    >>> read_text(p)
    'hi'
    >>> _ = open(p, "wb").write(gzip.compress(b"a,time\\n" * 1000)[:40])
    >>> read_text(p)
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: ...: the gzip data is cut off before its end (an interrupted download, copy \
or write) (hint: get the file again: only a Kernel Tuner cache cut off mid-run is read in part)
    """
    text, cut = read_text_cut(path)
    if cut:
        raise cut_off(path)
    return text


def as_path(path: Any, name: str = "path") -> Path:
    """``path`` as a :class:`~pathlib.Path`, or an error naming the argument when it is no path at all.

    >>> as_path("data/k.csv").name
    'k.csv'
    >>> as_path(5)
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: path: must be a file path (a str or pathlib.Path), got 5
    """
    return Path(check(name, path, Instances((str, os.PathLike), "a file path (a str or pathlib.Path)")))


def cut_off(path: str | Path) -> InputError:
    """The error for a file whose gzip data ends before its end mark."""
    return InputError("the gzip data is cut off before its end (an interrupted download, copy or write)",
                      where=str(path), hint="get the file again: only a Kernel Tuner cache cut off mid-run is read "
                                            "in part")


def read_text_cut(path: str | Path) -> tuple[str, bool]:
    """The text of ``path`` as :func:`read_text` reads it, and whether its gzip data was cut off before its end
    (then the text is what was written before the cut): for the Kernel Tuner cache reader, which recovers the
    complete entries of a cache cut off mid-run, and for format detection, which must see the text first."""
    path = as_path(path)
    if not path.exists():
        raise InputError("file not found", where=path, hint="check the path")
    if path.is_dir():
        raise InputError("is a directory, not a file", where=path, hint="give a file path")
    if not path.is_file():  # a named pipe waits forever for a writer; /dev/zero never ends
        raise InputError("is not a regular file (a pipe, a device or a socket)", where=path,
                         hint="save the data to a file first, and give that file")
    limit = max_input_bytes()
    try:
        if path.stat().st_size > limit:
            raise InputError(f"is {path.stat().st_size:,} bytes, more than the {limit:,} starchart reads",
                             where=path, hint=f"raise the limit with {LIMIT_VARIABLE}=BYTES if the file is right")
        raw: bytes | bytearray = path.read_bytes()
    except OSError as exc:  # e.g. no read permission: the hint is about access, not the encoding
        raise InputError(f"cannot read file ({exc.strerror or exc})", where=path,
                         hint="check that you may read it (its permissions) and that it is a regular file") from exc
    compressed = raw[:2] == b"\x1f\x8b"
    cut = False
    if compressed:
        try:
            raw, cut = _gunzip_tolerant(raw, limit)
        except zlib.error as exc:  # a damaged .gz would otherwise escape as a traceback
            raise InputError(f"broken gzip data ({exc})", where=path,
                             hint="the file is damaged; download or export it again") from exc
        except OverflowError:  # a gzip bomb: a small file that unpacks to gigabytes
            raise InputError(f"unpacks to more than the {limit:,} bytes starchart reads", where=path,
                             hint=f"starchart reads at most {limit:,} bytes of a file (unpacked); raise the limit "
                                  f"with {LIMIT_VARIABLE}=BYTES if the file is right") from None
    empty = not raw
    try:
        text = _decode(raw)
    except UnicodeDecodeError as exc:
        raise InputError(f"cannot read file ({exc})", where=path,
                         hint="give a UTF-8 text file, optionally gzip-compressed") from exc
    finally:
        del raw  # the bytes and their text held at once doubled the memory a large file takes
    if not text.strip():
        if compressed and empty:
            raise InputError("the gzip file holds no data (empty, or cut off before its content)",
                             where=path, hint="download or export it again")
        raise InputError("file is empty", where=path, hint="give a file with data in it")
    return text, cut


def _decode(raw: bytes | bytearray) -> str:
    """UTF-8 text without a leading byte-order mark; UTF-16 when its mark says so.

    Editors on Windows put a BOM before UTF-8 (Notepad) or save "Unicode text" as UTF-16 (Excel);
    a BOM left in the text hides the ``{`` of a JSON file from format detection and json.loads.

    >>> _decode(b"\\xef\\xbb\\xbf{}"), _decode("a,b".encode("utf-16"))
    ('{}', 'a,b')
    """
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return raw.decode("utf-16")
    return raw.decode("utf-8-sig")


def _gunzip_tolerant(raw: bytes | bytearray, limit: int | None = None) -> tuple[bytes | bytearray, bool]:
    """Decompress gzip data, keeping what was written before a truncated end; returns it and whether the
    data was cut off (it ends before the stream's end mark).

    Raises ``zlib.error`` when the data is not gzip at all or damaged before its end, and ``OverflowError``
    when it unpacks to more than ``limit`` bytes. The memory that takes stays far below the limit: a file
    whose gzip trailer (ISIZE, its size modulo 4 GiB) says more than the limit is first unpacked without being
    kept, and so is any file once it has unpacked to more than :data:`_KEEP_UNCHECKED` bytes, its total
    counted before the rest is kept (a bomb of many members, or one beyond 4 GiB, has a trailer that lies).

    >>> import gzip
    >>> bytes(_gunzip_tolerant(gzip.compress(b"a,b\\n" * 3))[0])
    b'a,b\\na,b\\na,b\\n'
    >>> _gunzip_tolerant(gzip.compress(b" " * 10_000), limit=1000)
    Traceback (most recent call last):
    ...
    OverflowError: 1000
    """
    if limit is not None and len(raw) >= 18 and limit < 2**32 and int.from_bytes(raw[-4:], "little") > limit:
        _unpack(raw, limit, keep=False)  # the trailer says too big: counted, not kept (a cut file's trailer is noise)
    return _unpack(raw, limit, keep=True)


#: How much a gzip file may unpack to before the rest of it is counted (unpacked without being kept) to check
#: the limit: unpacking a bomb whole to find it too big took as much memory as the limit.
_KEEP_UNCHECKED = 64 * 1024**2
#: How much one step of unpacking makes at most, and how much packed data it is given.
_STEP = 8 * 1024**2
_FEED = 1024**2


def _unpack(raw: bytes | bytearray, limit: int | None, *, keep: bool) -> tuple[bytearray, bool]:
    """Unpack gzip ``raw`` member after member a step at a time; returns the data (empty unless ``keep``) and
    whether it was cut off. Raises ``OverflowError`` as soon as more than ``limit`` bytes came out."""
    out, total, checked, view, start = bytearray(), 0, not keep, memoryview(raw), 0

    def take(piece: bytes) -> None:
        nonlocal total, checked
        total += len(piece)
        if limit is not None and total > limit:
            raise OverflowError(limit)
        if keep:
            out.extend(piece)
        if not checked and limit is not None and total > _KEEP_UNCHECKED:
            _unpack(raw, limit, keep=False)  # large: is all of it within the limit? (one more unpacking)
            checked = True

    while True:  # member after member: `gzip -c b >> f.gz` appends one, which zcat reads and a single stream lost
        # decompressobj (unlike gzip.decompress) returns what it could decode from a
        # stream cut off by a crash, so an unfinished cache.json.gz still loads.
        decomp = zlib.decompressobj(16 + zlib.MAX_WBITS)
        pos = start
        data: bytes | memoryview = b""
        while not decomp.eof:
            if not data and pos < len(view):  # fed a little at a time: each step copies what it left over
                data, pos = view[pos:pos + _FEED], min(pos + _FEED, len(view))
            piece = decomp.decompress(data, _STEP)
            data = decomp.unconsumed_tail
            if piece:
                take(piece)
            elif not data and pos >= len(view):  # the input is used up and nothing is pending: the end, or a cut
                break
        if not decomp.eof:  # cut off: what the stream still gives
            take(decomp.flush())
            return out, not decomp.eof
        start = pos - len(decomp.unused_data)  # (flush() would add the rest to unused_data once more)
        if raw.count(b"\x00", start) == len(raw) - start:  # the end (zero padding allowed after it)
            return out, False


#: The environment variable that sets how many bytes a file may hold (or unpack to) to be read.
LIMIT_VARIABLE = "STARCHART_MAX_INPUT_BYTES"
#: The default: far above any measurement file seen (a 200,000-configuration cache is about 100 MB).
DEFAULT_MAX_INPUT_BYTES = 2 * 1024**3


def max_input_bytes() -> int:
    """How many bytes an input file may hold, or unpack to: ``$STARCHART_MAX_INPUT_BYTES``, else 2 GiB."""
    given = os.environ.get(LIMIT_VARIABLE, "").strip()
    if not given:
        return DEFAULT_MAX_INPUT_BYTES
    if not given.isdigit() or int(given) < 1:
        raise InputError(f"{given!r} is not a number of bytes", where=LIMIT_VARIABLE,
                         hint=f"e.g. {LIMIT_VARIABLE}=4000000000, or unset it for 2 GiB")
    return int(given)


def parse_json(text: str, path: str | Path, *, unique_keys: bool = False) -> Any:
    """Parse JSON ``text`` read from ``path``; a syntax error names the file and line.

    ``unique_keys``: refuse an object that gives a key twice (JSON keeps the last one without a word),
    for the files people write by hand (spaces, evaluators).

    Examples
    --------
    >>> parse_json('[1, 2]', "x.json")
    [1, 2]
    >>> parse_json('{"a": 1, "a": 2}', "s.json", unique_keys=True)
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: s.json: the key 'a' appears twice in one object (hint: JSON keeps only the \
last one: remove or rename the other)
    """
    try:
        if unique_keys:
            return json.loads(text, object_pairs_hook=lambda pairs: _unique(pairs, path))
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
                         where=f"{path}, line {exc.lineno}",
                         hint="repair the file or re-export it") from exc
    except RecursionError:
        raise nested_too_deep(path) from None


def nested_too_deep(path: str | Path) -> InputError:
    """The error for a JSON or YAML document nested deeper than Python's parsers go (about 1,000 levels).

    Spaces, caches and results are a few levels deep: such a file is damaged or is not one of them.

    >>> parse_json("[" * 100_000 + "]" * 100_000, "deep.json")
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: deep.json: the document is nested too deeply to read (arrays or objects inside \
one another, thousands of levels) (hint: a space, cache or result file is a few levels deep: check that this is \
one, or re-export it)
    """
    return InputError("the document is nested too deeply to read (arrays or objects inside one another, thousands "
                      "of levels)", where=str(path),
                      hint="a space, cache or result file is a few levels deep: check that this is one, or re-export it")


def _unique(pairs: list[tuple[str, Any]], path: str | Path) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise InputError(f"the key {key!r} appears twice in one object", where=path,
                             hint="JSON keeps only the last one: remove or rename the other")
        seen[key] = value
    return seen


def read_json(path: str | Path) -> Any:
    """Parse a (possibly gzipped) JSON file; a syntax error names the file and line.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "x.json"); _ = open(p, "w").write('{"a": 1}')
    >>> read_json(p)
    {'a': 1}
    """
    return parse_json(read_text(path), path)


def write_json_atomic(path: str | Path, data: Any) -> None:
    """Write ``data`` as JSON to a temporary file beside ``path`` and rename it over ``path``
    (creating ``path``'s folder).

    A reader (or a run killed half-way) never sees half a file: results stored as they
    arrive stay readable.

    >>> import tempfile
    >>> target = Path(tempfile.mkdtemp()) / "sub" / "r.json"
    >>> write_json_atomic(target, {"a": 1}); read_json(target)
    {'a': 1}
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=1)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def folder_problem(folder: Path, exc: OSError) -> str:
    """Why ``folder`` could not be created: names the file in the way, which errno's words do not."""
    if isinstance(exc, (FileExistsError, NotADirectoryError)):
        blocking = next((p for p in (folder, *folder.parents) if p.exists() and not p.is_dir()), None)
        if blocking is not None:
            return f"{blocking} is a file, not a folder"
    return exc.strerror or str(exc)


#: Filesystems served over a network, where SQLite's locking (and its write-ahead log above all) cannot be
#: trusted between hosts (https://www.sqlite.org/wal.html: "WAL does not work over a network filesystem").
NETWORK_FILESYSTEMS = frozenset({"nfs", "nfs4", "cifs", "smb3", "smbfs", "fuse.sshfs", "9p", "afs", "lustre",
                                 "glusterfs", "fuse.glusterfs", "ceph", "fuse.ceph", "gpfs", "beegfs",
                                 "fuse.s3fs", "fuse.rclone", "ncpfs", "coda"})


def network_filesystem(path: str | Path, mounts: str | Path = "/proc/mounts") -> str | None:
    """The type of the network filesystem that holds ``path`` (``"nfs4"``), or ``None`` for a local one
    (or where the mounts cannot be read: not Linux).

    >>> import tempfile, os
    >>> table = os.path.join(tempfile.mkdtemp(), "mounts")
    >>> _ = open(table, "w").write("/dev/sda1 / ext4 rw 0 0\\nserver:/home /home nfs4 rw 0 0\\n")
    >>> network_filesystem("/home/ann/study.db", table), network_filesystem("/tmp/study.db", table)
    ('nfs4', None)
    """
    try:
        lines = Path(mounts).read_text().splitlines()
    except OSError:
        return None
    target = os.path.abspath(os.path.realpath(path))
    best, kind = "", ""
    for line in lines:
        fields = line.split()
        if len(fields) < 3:
            continue
        point = fields[1].replace("\\040", " ")  # /proc/mounts escapes spaces in mount points
        inside = target == point or target.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, kind = point, fields[2]
    return kind if kind in NETWORK_FILESYSTEMS else None
