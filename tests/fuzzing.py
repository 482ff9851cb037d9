"""Breaking a valid text the ways a damaged or hand-edited file is broken, for the fuzz tests."""

from __future__ import annotations

import random
from collections.abc import Sequence

#: Bytes a flip writes by default: the punctuation of JSON and CSV, a line break, NUL, invalid UTF-8, digits.
FLIPS = b',:"{}[]\n\x00\xff 9-e'
#: Pieces spliced in by default.
PIECES = (b"\n,,,\n", b"nan", b"1e999", b'"', b"\xff\xfe", b"\t")


def broken_text(text: str, rng: random.Random, *, flips: bytes = FLIPS,
                pieces: Sequence[bytes] = PIECES) -> bytes:
    """``text`` cut short (3 in 10), with one to five bytes flipped to ``flips`` (3 in 10), or with one of
    ``pieces`` spliced in (4 in 10)."""
    raw = bytearray(text.encode())
    action = rng.random()
    if action < 0.3:
        del raw[rng.randrange(len(raw)):]
    elif action < 0.6:
        for _ in range(rng.randint(1, 5)):
            raw[rng.randrange(len(raw))] = rng.choice(flips)
    else:
        at = rng.randrange(len(raw) + 1)
        raw[at:at] = rng.choice(list(pieces))
    return bytes(raw)
