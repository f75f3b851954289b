"""The MLLR transform of pocketsphinx's US English model for a room that rings.

pocketsphinx adapts its acoustic model to a speaker or a room with a maximum-likelihood
linear regression of the Gaussian means, mu' = A mu + b, read from a text file by the
decoder's ``mllr`` key (sphinx's mllr_matrix format: the number of classes, of streams, then
per stream its length and per class the rows of A, b, and a variance scale).
``room_mllr`` (next to this module) is one global class for the model's three 13-wide
streams, estimated from synthetic speech in simulated rooms by tests/bench/train_mllr.py
(docs/speech.md, "Hearing in a room").
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

#: The shipped transform (package data).
ROOM_TRANSFORM = Path(__file__).with_name("room_mllr")

Matrix = npt.NDArray[np.float64]


def write_transform(path: Path, streams: Sequence[tuple[Matrix, Matrix]]) -> None:
    """One class: ``streams`` is (A, b) per feature stream; variances are left as they are."""
    lines = ["1", str(len(streams))]
    for a, b in streams:
        lines.append(str(len(b)))  # each stream's length comes just before its matrices
        lines += [" ".join(f"{v:.6f}" for v in row) for row in a]
        lines += [" ".join(f"{v:.6f}" for v in b), " ".join("1.0" for _ in b)]
    path.write_text("\n".join(lines) + "\n")


def read_transform(path: Path) -> list[tuple[Matrix, Matrix]]:
    """(A, b) per stream of a one-class transform written by :func:`write_transform`."""
    values = path.read_text().split()
    classes, n = int(values[0]), int(values[1])
    if classes != 1:
        raise ValueError(f"{path}: {classes} classes, one expected")
    at, out = 2, []
    for _ in range(n):
        length = int(values[at])
        at += 1
        block = np.array(values[at : at + length * (length + 2)], dtype=np.float64)
        at += length * (length + 2)
        out.append(
            (block[: length * length].reshape(length, length), block[length * length : length * (length + 1)])
        )
    return out
