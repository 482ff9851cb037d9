"""Reading a program's stdout and stderr with bounded memory.

A benchmark gone wrong can print without end (an error message in a loop until its timeout):
read whole, gigabytes of it would be held twice (bytes, then text) and the tuner itself would
be killed for memory — on resume the same configuration would run again, and kill it again.
:class:`PipeReader` reads both pipes in the calling thread (like :meth:`subprocess.Popen.communicate`)
into :class:`BoundedCapture` buffers that keep every byte up to :data:`OUTPUT_LIMIT` per stream and,
past it, the first :data:`OUTPUT_HEAD` bytes and the last ones, whole lines, with a marker line
saying how much was dropped between them: values printed at the end (the usual case) are kept.

Examples
--------
>>> capture = BoundedCapture(limit=26, head=8)
>>> for line in [b"start\\n", b"noise\\n" * 10, b"time=1.5\\n", b"time=1.7\\n"]:
...     capture.add(line)
>>> print(capture.data().decode(), end="")
start
[starchart: 60 bytes of output dropped here; the first 6 and the last 18 are kept]
time=1.5
time=1.7
>>> capture.dropped
60
"""

from __future__ import annotations

import os
import selectors
import subprocess
import time
from collections import deque

__all__ = ["OUTPUT_HEAD", "OUTPUT_LIMIT", "BoundedCapture", "PipeReader"]

#: Bytes of one stream kept whole; past this only the head and the tail are kept.
OUTPUT_LIMIT = 32 * 2**20
#: Bytes of the beginning kept once a stream passes :data:`OUTPUT_LIMIT` (the rest of the limit is its end).
OUTPUT_HEAD = 2**20

_CHUNK = 1 << 16


class BoundedCapture:
    """The bytes of one stream: all of them up to ``limit``, past it the first ``head`` and the last
    ``limit - head``, cut at line ends so that no value is read from half a line."""

    def __init__(self, limit: int = OUTPUT_LIMIT, head: int = OUTPUT_HEAD):
        if not 0 <= head < limit:
            raise ValueError(f"head ({head}) must be below limit ({limit})")
        self.limit, self.head_limit = limit, head
        self._head = bytearray()
        self._tail: deque[bytes] = deque()
        self._tail_bytes = 0
        self._dropped = 0  # whole chunks dropped from the front of the tail
        self._last_dropped = b""  # the byte before what the tail holds

    def add(self, chunk: bytes) -> None:
        """Append what was read."""
        room = self.head_limit - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        if not chunk:
            return
        self._tail.append(chunk)
        self._tail_bytes += len(chunk)
        keep = self.limit - self.head_limit
        while self._tail_bytes - len(self._tail[0]) >= keep:  # the rest still fills the window
            first = self._tail.popleft()
            self._tail_bytes -= len(first)
            self._dropped += len(first)
            self._last_dropped = first[-1:]

    @property
    def dropped(self) -> int:
        """Bytes left out of :meth:`data` (0 while the stream fits the limit)."""
        head, cut, tail = self._pieces()
        return self._total() - len(head) - len(tail) if cut else 0

    def data(self) -> bytes:
        """What is kept, with a marker line where bytes were dropped."""
        head, cut, tail = self._pieces()
        if not cut:
            return head + tail
        dropped = self._total() - len(head) - len(tail)
        marker = (f"[starchart: {dropped} bytes of output dropped here; "
                  f"the first {len(head)} and the last {len(tail)} are kept]\n").encode()
        return head + marker + tail  # the head is cut back to whole lines: the marker starts a line

    def _total(self) -> int:
        return len(self._head) + self._dropped + self._tail_bytes

    def _pieces(self) -> tuple[bytes, bool, bytes]:
        """``(head, whether anything is cut, tail)``, each cut back to whole lines when something is."""
        joined = b"".join(self._tail)
        excess = max(len(joined) - (self.limit - self.head_limit), 0)
        if not self._dropped and not excess:
            return bytes(self._head), False, joined
        before = joined[excess - 1:excess] if excess else self._last_dropped
        tail = joined[excess:]
        if before != b"\n":  # its first line lost its beginning
            tail = tail[tail.find(b"\n") + 1:] if b"\n" in tail else b""
        head = bytes(self._head)
        return head[:head.rfind(b"\n") + 1], True, tail  # its last line may have lost its end


class PipeReader:
    """Reads a process's stdout and stderr pipes into :class:`BoundedCapture` buffers, in this thread.

    >>> proc = subprocess.Popen(["sh", "-c", "echo out; echo err >&2"], stdout=subprocess.PIPE,
    ...                         stderr=subprocess.PIPE)
    >>> reader = PipeReader(proc)
    >>> while not reader.closed:
    ...     reader.read(1.0)
    >>> proc.wait(), reader.stdout.data(), reader.stderr.data()
    (0, b'out\\n', b'err\\n')
    """

    def __init__(self, proc: subprocess.Popen, limit: int = OUTPUT_LIMIT, head: int = OUTPUT_HEAD):
        self.stdout = BoundedCapture(limit, head)
        self.stderr = BoundedCapture(limit, head)
        self._selector = selectors.DefaultSelector()
        for stream, capture in ((proc.stdout, self.stdout), (proc.stderr, self.stderr)):
            if stream is not None:
                self._selector.register(stream, selectors.EVENT_READ, capture)

    @property
    def closed(self) -> bool:
        """Whether every pipe reached its end (or was given up)."""
        return not self._selector.get_map()

    def read(self, timeout: float) -> None:
        """Read what arrives within ``timeout`` seconds (returns at the first data or end of a pipe)."""
        if self.closed:
            time.sleep(max(timeout, 0.0))
            return
        for key, _ in self._selector.select(max(timeout, 0.0)):
            chunk = os.read(key.fd, _CHUNK)
            if chunk:
                key.data.add(chunk)
            else:
                self._selector.unregister(key.fileobj)
                key.fileobj.close()

    def drain(self, timeout: float) -> bool:
        """Read until every pipe ends or ``timeout`` passes; then stop reading. Whether they all ended."""
        until = time.perf_counter() + timeout
        while not self.closed and time.perf_counter() < until:
            self.read(until - time.perf_counter())
        ended = self.closed
        self.close()
        return ended

    def close(self) -> None:
        """Stop reading: something outside the program's group may hold the pipes open for ever."""
        for key in list((self._selector.get_map() or {}).values()):
            self._selector.unregister(key.fileobj)
            key.fileobj.close()
        self._selector.close()
