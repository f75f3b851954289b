"""Which numbers a ringing room's hearing takes for which: the evidence for (or against) a
confusion pair of grammars/en/confusions.yaml in a room, not in noise.

Run: python tests/bench/bench_confusions.py [--rooms den,living,kitchen] [--voices piper,espeak-m]
     [--numbers teens|all|13,30,...] [--repeat 1] [--ring-means PATH|none] [--show]

Each number is said from the room's seats in turn (tests/bench/rooms.py), one stream a room
and voice through one end-pointer and recogniser told the room rings (the adapted means,
as a table's decoders take them once the room meter finds the room ringing), the grammar
Up-or-Down's opening phrase list. Per room and voice, and in all: numbers heard right,
heard as another with the share and no rival ("sure": what the room's rules would rule at
once unless a confusion pair says otherwise), heard as another otherwise, or dropped (talk,
or no hearing); every sure mishearing is printed, with whether confusions.yaml lists it.
``teens``: 13-19, their tens, and a tens-and-unit number of each (the with_units pairs).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from grammars.reader import confusable, number_tokens, read_numbers, to_words
from host.confirm import NOISY_RIVAL_SHARE
from host.speech.model import load_model
from tests.bench.bench_room import (
    hear_stream,
    heard_during,
    opening_listener,
    pcm16,
    pick_rooms,
    said_from_seats,
    set_ring_means,
    stream_endpointer,
)

SURE_SHARE = 0.95
GAP_S = 1.2  # between the numbers said


def numbers_for(spec: str, rng: random.Random) -> list[int]:
    if spec == "all":
        return list(range(1, 101))
    if spec == "teens":
        out = []
        for teen in range(13, 20):
            tens = (teen - 10) * 10
            out += [teen, tens, tens + rng.randint(1, 9)]
        return out
    return [int(n) for n in spec.split(",")]


def number_of(text: str) -> int | None:
    """The one number ``text`` says (None: none, or more, or other words with it)."""
    tokens = number_tokens(text, "en")
    found = read_numbers(tokens, "en")
    whole = len(found) == 1 and (found[0].start, found[0].end) == (0, len(tokens))
    return found[0].value if whole else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", default="tuning")
    parser.add_argument("--voices", default="piper,espeak-m")
    parser.add_argument("--numbers", default="teens")
    parser.add_argument("--repeat", type=int, default=1, help="the numbers said this many times, shuffled")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--ring-means", help="the adapted means (PATH, or none: the transform alone)")
    parser.add_argument("--show", action="store_true", help="every hearing, not only the sure mishearings")
    args = parser.parse_args()
    set_ring_means(args)
    rng = random.Random(args.seed)
    model = load_model(None, lang="en", engine="auto")
    listener = opening_listener(model)
    said = [n for _ in range(args.repeat) for n in numbers_for(args.numbers, rng)]
    rng.shuffle(said)
    total: Counter[str] = Counter()
    for room in pick_rooms(args.rooms):
        for voice in args.voices.split(","):
            endpointer = stream_endpointer(model, listener, True)
            x, spans = said_from_seats([to_words(n, "en") for n in said], voice, room, GAP_S)
            hearings = hear_stream(endpointer, pcm16(x))
            counts: Counter[str] = Counter()
            for (start, end), n in zip(spans, said, strict=True):
                mine = heard_during(hearings, start, end)
                h = mine[0] if mine else None
                if h is None or h.talk or not h.alternatives:
                    what, note = "dropped", ""
                else:
                    heard = number_of(h.text)
                    top = h.alternatives[0][1]
                    # a ringing room's rules: any other number at NOISY_RIVAL_SHARE of the
                    # top's weight is a rival (the game's "likely" left aside: all count)
                    rival = any(
                        (m := number_of(text)) is not None and m != heard and share >= NOISY_RIVAL_SHARE * top
                        for text, share in h.alternatives[1:]
                    )
                    sure = top >= SURE_SHARE and not rival
                    listed = heard is not None and n in confusable(heard, "en")
                    if heard == n:
                        what, note = "right", ""
                    else:
                        what = "wrong sure" if sure else "wrong"
                        note = " (listed)" if listed else ""
                    if what == "wrong sure" or args.show:
                        alts = [(t, round(s, 2)) for t, s in h.alternatives[:3]]
                        print(f"  {room.name} {voice}: {n} -> {h.text!r}{note} {alts}")
                counts[what] += 1
            total.update(counts)
            print(f"CONFUSIONS {room.name} {voice}: {tally(counts)}")
    print(f"CONFUSIONS all: {tally(total)}")


def tally(counts: Counter[str]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))


if __name__ == "__main__":
    main()
