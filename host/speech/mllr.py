"""pocketsphinx's US English model adapted to a room that rings: an MLLR transform, and
the model's means adapted further (MAP).

pocketsphinx adapts its acoustic model to a speaker or a room with a maximum-likelihood
linear regression of the Gaussian means, mu' = A mu + b, read from a text file by the
decoder's ``mllr`` key (sphinx's mllr_matrix format: the number of classes, of streams, then
per stream its length and per class the rows of A, b, and a variance scale).
``room_mllr`` (next to this module) is one global class for the model's three 13-wide
streams, estimated from synthetic speech in simulated rooms by tests/bench/train_mllr.py
(docs/speech.md, "Hearing in a room").

``room_means`` (next to this module) is the model's ``means`` file moved towards what a
table's microphone hears in a ringing room: each Gaussian's mean, through the transform,
then towards the reverberant frames it scored (maximum a posteriori, the same estimate's
statistics). It is only valid for the means it was adapted from, whose SHA-256 its header
names (``adapted_from``): :func:`fits` says whether a model is that one.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

#: The shipped transform (package data).
ROOM_TRANSFORM = Path(__file__).with_name("room_mllr")
#: The shipped adapted means (package data).
ROOM_MEANS = Path(__file__).with_name("room_means")
_END = b"endhdr\n"

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


def gauden_header(path: Path) -> dict[str, str]:
    """The key-value lines of a sphinx3 Gaussian file's text header (``s3`` ... ``endhdr``)."""
    with path.open("rb") as f:
        head = f.read(4096)
    lines = head[: head.index(_END)].decode("ascii").splitlines()[1:]
    return dict(line.strip().partition(" ")[::2] for line in lines if line.strip())


def read_gauden(path: Path) -> list[Matrix]:
    """A sphinx3 Gaussian file (means or variances): per stream [codebook, density, length]."""
    raw = path.read_bytes()
    at = raw.index(_END) + len(_END)
    if struct.unpack("<I", raw[at : at + 4])[0] != 0x11223344:
        raise ValueError(f"{path}: not little-endian")
    n_mgau, n_feat, n_density = struct.unpack("<3i", raw[at + 4 : at + 16])
    veclen = struct.unpack(f"<{n_feat}i", raw[at + 16 : at + 16 + 4 * n_feat])
    at += 16 + 4 * n_feat + 4  # and the count of values
    data = np.frombuffer(raw, "<f4", n_mgau * n_density * sum(veclen), at).astype(np.float64)
    per_mgau = data.reshape(n_mgau, -1)
    streams, start = [], 0
    for v in veclen:
        streams.append(per_mgau[:, start : start + n_density * v].reshape(n_mgau, n_density, v))
        start += n_density * v
    return streams


def write_gauden(source: Path, path: Path, streams: Sequence[Matrix]) -> None:
    """``source`` (a sphinx3 Gaussian file) with its values replaced by ``streams`` and its
    SHA-256 in the header (``adapted_from``); written without the checksum, which
    pocketsphinx checks only when the header says there is one."""
    raw = source.read_bytes()
    at = raw.index(_END)
    header = raw[:at].replace(b"chksum0 yes\n", b"") + f"adapted_from {_sha256(source)}\n".encode()
    body = raw[at + len(_END) :]
    n_feat = struct.unpack("<i", body[8:12])[0]
    start = 16 + 4 * n_feat + 4
    data = np.concatenate([s.reshape(s.shape[0], -1) for s in streams], axis=1).astype("<f4")
    path.write_bytes(header + _END + body[:start] + data.tobytes())


@cache
def fits(means: Path, model: Path) -> bool:
    """Whether ``means`` were adapted from ``model``'s own (a newer pocketsphinx, or another
    model, has other Gaussians: the same file would score nonsense)."""
    if not means.is_file() or not (model / "means").is_file():
        return False
    return gauden_header(means).get("adapted_from") == _sha256(model / "means")


@cache
def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
