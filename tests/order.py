"""The slowest tests first on every worker when pytest-xdist runs the suite: a hook called
by tests/conftest.py.

``--dist worksteal`` starts by sending each of the k workers a contiguous run of the
collected tests (the first n/k to the first, and so on), and when one runs dry, it moves the
back half of the longest queue to it. In collection order the heaviest tests (whole spoken
games, the gate's decodes, browsers) are in tests/speech, tests/table and tests/web, near
the end: the last minute of the suite was one worker alone in a heavy test. Sorting them
all to the front (tried first) put them all in the first worker's run, where they stayed,
since stealing takes the back of a queue. So the slow tests are dealt out over the k runs,
each to the run with the fewest seconds so far (the longest job first to the least loaded
is a classic rule for balancing), at the front of its run, and the rest fill the runs in
collection order, so that tests sharing a module's fixtures mostly stay together.

The seconds are what each test takes on a quiet 2-core machine, roughly (the suite's
slowest tests are listed at the end of each run). A name that no longer matches a test just
loses its place (the suite stays correct, only less balanced); tests not named are light.
"""

from __future__ import annotations

import os

import pytest

#: A test (all its parameters) or a whole file -> its seconds, roughly (the longest as timed
#: in a whole run on a fresh clone, 2 cores, three workers).
SLOW = {
    "tests/table/test_english_cards_spoken.py::test_a_spoken_upside_out_game": 41,
    "tests/speech/test_sphinx.py::test_a_second_pronunciation_lets_a_voice": 15,
    "tests/table/test_english_cards_spoken.py::test_a_spoken_blofa_game": 38,
    "tests/table/test_english_cards_spoken.py::test_a_spoken_inversion_game": 32,
    "tests/web/test_browser.py::test_a_game_played_by_voice_through_the_page": 25,
    "tests/speech/test_sphinx.py::test_the_gate_keeps_espeak_moves_and_still_drops_talk": 15,
    "tests/speech/test_sphinx.py::test_the_lenient_gate_keeps_card_names": 11,
    "tests/web/test_room_check.py::test_a_room_checked_from_the_page": 20,
    "tests/web/test_browser.py::test_inversion_on_a_phone_fits_the_screen": 13,
    "tests/web/test_browser.py::test_the_page_comes_back_by_itself": 18,
    "tests/web/test_browser_names.py::test_the_page_asks_the_names": 13,
    "tests/speech/test_sphinx.py::test_the_lenient_gate_still_hears_sentences_as_talk": 10,
    "tests/web/test_browser.py::test_every_sms_ruling_made_by_another_process": 16,
    "tests/speech/test_foreground.py::test_a_move_said_over_the_others_chatter": 6,
    "tests/table/test_table_exit.py::test_a_table_game_ends_with_exit_code_0": 10,
    "tests/reliability/test_pg_workers.py::test_serve_with_workers_behind_one_port": 10,
    "tests/media/test_english_stream.py::test_an_english_game_on_a_stream": 9,
    "tests/test_readme.py::test_try_it_as_a_newcomer_types_it_twice": 9,
    "tests/speech/test_sphinx.py::test_a_lattice_that_disagrees": 15,
    "tests/web/test_browser.py": 8,
    "tests/reliability/test_pg_workers.py::test_each_deadline_ruled_once": 7,
    "tests/table/test_room.py::test_a_room_that_rings_is_measured": 7,
    "tests/deploy/test_image_payload.py::test_the_wheel_the_image_installs_serves": 7,
    "tests/reliability/test_crash_between.py::test_a_move_heard_by_the_page_survives": 26,
    "tests/test_readme.py::test_try_it_at_a_table_from_a_recording": 7,
    "tests/reliability/test_request_limits.py::test_slow_headers_are_cut": 6,
    "tests/host/test_inversion_referee.py::test_anything_said_gets_an_answer": 6,
    "tests/table/test_listener.py::test_a_reply_to_talk_is_not_asked_about_as_a_move": 5,
    "tests/table/test_table_exit.py": 5,
    "tests/reliability/test_leaving_and_restarting.py::test_new_game_after_the_winner_left": 5,
    "tests/media/test_one_transaction.py::test_a_move_said_into_the_stream_and_its_news": 4,
    "tests/table/test_speakers.py": 4,
    "tests/reliability/test_every_input.py::test_every_input_in_every_state_is_answered": 4,
    "tests/table/test_room.py": 3,
    "tests/table/test_english_table.py": 3,
    "tests/reliability/test_cli_input.py::test_bad_command_lines_exit_2_with_a_message": 3,
}


def seconds(nodeid: str) -> float:
    """The longest name in SLOW that ``nodeid`` starts with gives its seconds (else 0)."""
    named = [name for name in SLOW if nodeid.startswith(name)]
    return SLOW[max(named, key=len)] if named else 0.0


def runs(total: int, workers: int) -> list[int]:
    """How many tests worksteal sends each worker at the start (xdist 3.8's ``check_schedule``:
    what is pending, divided by the idle workers left)."""
    sizes = []
    for left in range(workers, 0, -1):
        sizes.append(total // left)
        total -= sizes[-1]
    return sizes


def slowest_first(items: list[pytest.Item]) -> None:
    """Reorder ``items`` in place when xdist's workers run them, so that each worker's first
    run of tests starts with its share of the slow ones (each worker sorts the same
    collection the same way, as xdist requires)."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))
    if "PYTEST_XDIST_WORKER" not in os.environ or workers < 1:
        return
    sizes = runs(len(items), workers)
    weight = {id(item): seconds(item.nodeid) for item in items}
    slow = sorted((item for item in items if weight[id(item)] > 0), key=lambda item: -weight[id(item)])
    lanes: list[list[pytest.Item]] = [[] for _ in sizes]
    load = [0.0] * len(sizes)
    for item in slow:
        open_lanes = [i for i in range(len(sizes)) if len(lanes[i]) < sizes[i]]
        least = min(open_lanes, key=lambda i: load[i])
        lanes[least].append(item)
        load[least] += weight[id(item)]
    light = iter(item for item in items if weight[id(item)] == 0)
    for lane, size in zip(lanes, sizes, strict=True):
        lane.extend(next(light) for _ in range(size - len(lane)))
    items[:] = [item for lane in lanes for item in lane]
