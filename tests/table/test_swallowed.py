"""The reading's merge of a swallowed ending (host/listening/reading.py): a property test
beside the table test in tests/table/test_room.py."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from games.base import Command
from host.listening.reading import _merge_swallowed

weights = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@given(weights, weights, weights)
def test_a_swallowed_reading_goes_to_the_move_heard_with_its_ending(
    long: float, short: float, other: float
) -> None:
    mass = {"turned": long, "plain": short, "gift": other}
    said_as = {"plays x turned": "turned", "plays x": "plain", "plays gift": "gift"}
    _merge_swallowed(mass, said_as, ("turned",))
    assert sum(mass.values()) == long + short + other  # no weight made or lost
    assert mass["gift"] == other  # another card stays a rival
    if long >= short:
        assert mass == {"turned": long + short, "gift": other}
    else:  # the plain play weighs more: nothing is ruled as turned on the ending's word
        assert mass == {"turned": long, "plain": short, "gift": other}


def test_only_moves_merge_and_only_on_a_listed_ending() -> None:
    mass = {"turned": 0.6, Command("undo"): 0.4}
    _merge_swallowed(mass, {"plays x turned": "turned", "plays x": Command("undo")}, ("turned",))
    assert mass == {"turned": 0.6, Command("undo"): 0.4}
    mass = {"turned": 0.6, "plain": 0.4}
    _merge_swallowed(mass, {"plays x turned": "turned", "plays x": "plain"}, ())
    assert mass == {"turned": 0.6, "plain": 0.4}
