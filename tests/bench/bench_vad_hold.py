"""Where speech ends in a room that rings: the voice activity detector's hold, on and off.

Run: python tests/bench/bench_vad_hold.py [--rooms living,lounge,kitchen,tuning,fresh:COUNT:SEED,rt:0.72]
     [--hold P]

Twelve numbers, each said by Piper 1.2 s after the last, from every seat of each room
(tests/bench/rooms.py; ``rt:X`` is the living room's shape with its walls chosen for RT60
X s), heard by the end-pointer told the room rings, once with speech ending where it
began (``endpointer.RINGING_VAD_HOLD``, or ``--hold``) and once with the detector's own
hysteresis (as in a room that echoes). Printed per seat and per room: hearings (12 when no
number was cut in two or joined to the next) and numbers heard right (in order), with and
without the hold. The decoder is the table's before the room is measured (no room adaptation): this
measures the end-pointer, not the hearing of a room (bench_room.py does).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from difflib import SequenceMatcher
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from host.speech import endpointer as endpointing
from host.speech.audio import SAMPLE_RATE, pcm_chunks
from host.speech.endpointer import Endpointer
from host.speech.engines import recognizer_for
from host.speech.model import load_model
from tests import voices
from tests.bench import rooms
from tests.bench.bench_room import pick_rooms
from tests.speech.conftest import trim
from tests.speech.english import NUMBERS_EN
from tests.speech.reverb import over_floor

WORDS = ["ninety", "seventeen", "ninety one", "seventy eight", "thirty", "fifty nine"]
WORDS += ["sixteen", "eighty four", "forty six", "sixty one", "nineteen", "forty two"]
GAP_S = 1.2


def rooms_named(spec: str) -> list[rooms.Room]:
    """bench_room.py's room names (``pick_rooms``), any number of them, and ``rt:X``."""
    found: list[rooms.Room] = []
    for name in spec.split(","):
        if name.startswith("rt:"):
            rt60 = float(name[3:])
            found.append(dataclasses.replace(rooms.ROOMS["living"], name=f"living@{rt60}", rt60=rt60))
        else:
            found += pick_rooms(name)
    return found


def pair(row: list[int]) -> str:
    return f"{row[0]} / {row[1]} | {row[2]} / {row[3]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", default="living,lounge,kitchen")
    parser.add_argument("--hold", type=float, help="endpointer.RINGING_VAD_HOLD")
    args = parser.parse_args()
    if args.hold is not None:
        endpointing.RINGING_VAD_HOLD = args.hold
    model = load_model(lang="en", engine="pocketsphinx", download=False)
    dry = [trim(voices.piper(w)) for w in WORDS]
    print(f"hold {endpointing.RINGING_VAD_HOLD}: hearings / right of {len(WORDS)}, held | own hysteresis")
    for room in rooms_named(args.rooms):
        totals = [0, 0, 0, 0]
        for seat in range(len(room.seats)):
            rir = rooms.impulse_response(room, room.seat_position(seat))
            pieces, at = [], round(0.6 * SAMPLE_RATE)
            for pcm in dry:
                pieces.append((at, rooms.through(pcm, rir)))
                at += len(pcm) // 2 + round(GAP_S * SAMPLE_RATE)
            audio = over_floor(pieces, at / SAMPLE_RATE + 1.0)
            row = []
            for echoing in (False, True):
                endpointer = Endpointer(recognizer_for(model, SAMPLE_RATE, list(NUMBERS_EN)), vad="silero")
                endpointer.room_rings(True, echoing=echoing)
                heard = [h.text for h in endpointer.hearings(pcm_chunks(audio))]
                matched = SequenceMatcher(a=heard, b=WORDS, autojunk=False).get_matching_blocks()
                right = sum(block.size for block in matched)
                row += [len(heard), right]
            totals = [t + r for t, r in zip(totals, row, strict=True)]
            print(
                f"  {room.name} (RT60 {room.rt60} s) seat {seat}: {row[0]} / {row[1]} | {row[2]} / {row[3]}"
            )
        print(
            f"{room.name} (RT60 {room.rt60} s): {totals[0]} / {totals[1]} | {totals[2]} / {totals[3]}",
            flush=True,
        )


if __name__ == "__main__":
    main()
