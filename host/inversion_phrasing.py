"""!nversion events, prompts and refusals to words, from ``grammars/<lang>/phrases.yaml``.

Pure functions like ``host/phrasing.py``: the same words go to a console, an SMS and TTS.
Cards read as "9 of hearts" in English ("하트 9" in Korean); ``spoken`` reads the number
as words too, for a recogniser-friendly echo.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from games import inversion as inv
from games.cards import Card, Suit
from games.core import Event, GameOver, Outcome
from grammars import Grammar, load
from host.card_language import suit_words

if TYPE_CHECKING:
    from host.referee import ActUndone


def card_text(card: Card, lang: str = "en") -> str:
    g = load(lang)
    return g.phrase(
        "inv_card",
        rank=card.rank,
        suit=suit_words(card.suit, lang),
        suits=suit_words(card.suit, lang, plural=True),
    )


def cards_text(cards: Sequence[Card], lang: str = "en") -> str:
    return ", ".join(card_text(c, lang) for c in cards)


def _suits(suits: Sequence[Suit], lang: str) -> str:
    return ", ".join(suit_words(s, lang, plural=True) for s in suits)


def _tally(g: Grammar, tally: Sequence[tuple[str, int]]) -> str:
    return ", ".join(g.phrase("inv_tally_item", player=p, count=c) for p, c in tally)


def _reason(g: Grammar, event: inv.TrickWon, lang: str) -> str:
    reason = g.phrase(
        f"inv_reason_{event.reason}",
        suit=suit_words(event.follow_suit, lang),
        suits=suit_words(event.follow_suit, lang, plural=True),
    )
    if event.tie:
        reason += ", " + g.phrase("inv_reason_tie", player=event.winner)
    return reason


def outcome_text(outcome: Outcome, lang: str = "en") -> str:
    g = load(lang)
    assert isinstance(outcome, inv.InversionOutcome)
    tricks = dict(outcome.scores)
    if outcome.reason == "player_left":
        return g.phrase("inv_result_left", player=outcome.left)
    if outcome.reason == "requested":
        return f"{g.phrase('game_over_requested')} {g.phrase('inv_tally', tally=_tally(g, outcome.scores))}"
    if outcome.parent is not None and outcome.bid is not None:
        fields = {"parent": outcome.parent, "bid": outcome.bid, "tricks": tricks[outcome.parent]}
        if outcome.winners == (outcome.parent,):
            return g.phrase("inv_result_made", **fields)
        children = f" {g.phrases['and']} ".join(outcome.winners)
        return g.phrase("inv_result_missed", children=children, **fields)
    counts = sorted(tricks.values(), reverse=True)
    score = g.phrase("inv_score_two", high=counts[0], low=counts[-1])
    if outcome.winner is not None:
        return g.phrase("inv_result_winner", winner=outcome.winner, score=score)
    return g.phrase("inv_result_draw", score=score)


def describe(event: Event, lang: str = "en", *, penalty: bool = False) -> str:
    """One line per event; ``penalty`` adds what a revoke costs when the table chose one."""
    g = load(lang)
    if isinstance(event, inv.SuitsChosen):
        return g.phrase("inv_suits", suits=_suits(event.suits, lang))
    if isinstance(event, inv.LaneLaid):
        return g.phrase("inv_lane", total=event.total, cards=cards_text(event.cards, lang))
    if isinstance(event, inv.FirstChosen):
        return g.phrase("inv_opener" if event.bidding else "inv_first", player=event.player)
    if isinstance(event, inv.BidMade):
        if event.amount is None:
            return g.phrase("inv_pass", player=event.player)
        return g.phrase("inv_bid", player=event.player, amount=event.amount)
    if isinstance(event, inv.AuctionWon):
        return g.phrase("inv_parent", parent=event.parent, bid=event.bid, children=", ".join(event.children))
    if isinstance(event, inv.TrickStarted):
        return g.phrase(
            "inv_trick_started", trick=event.trick, card=card_text(event.follow, lang), player=event.leader
        )
    if isinstance(event, inv.CardPlayed):
        return g.phrase("inv_played", player=event.player, card=card_text(event.card, lang))
    if isinstance(event, inv.Inversion):
        return g.phrase(
            "inv_inversion",
            player=event.player,
            took=card_text(event.took, lang),
            card=card_text(event.card, lang),
        )
    if isinstance(event, inv.Revoke):
        key = "inv_revoke_played" if event.evidence == "played" else "inv_revoke_count"
        line = g.phrase(
            key,
            player=event.player,
            suits=suit_words(event.suit, lang, plural=True),
            claimed_trick=event.claimed_trick,
            claimed_card=card_text(event.claimed_card, lang),
            card=card_text(event.card, lang) if event.card is not None else "",
            hand=event.hand,
            others=event.others,
        )
        return f"{line} {g.phrase('inv_revoke_penalty')}" if penalty else line
    if isinstance(event, inv.TrickWon):
        won = g.phrase(
            "inv_won",
            player=event.winner,
            trick=event.trick,
            card=card_text(event.card, lang),
            reason=_reason(g, event, lang),
        )
        # The tally is its own line: a channel may send it apart (one SMS segment each).
        return f"{won}\n{g.phrase('inv_tally', tally=_tally(g, event.tally))}"
    if isinstance(event, inv.CardsAccounted):
        if not event.missing and not event.doubled:
            return g.phrase("inv_accounted", total=event.total)
        none = g.phrases["none"]
        return g.phrase(
            "inv_unaccounted",
            missing=cards_text(event.missing, lang) or none,
            doubled=cards_text(event.doubled, lang) or none,
        )
    if isinstance(event, GameOver):
        return f"{outcome_text(event.outcome, lang)} {g.phrase('inv_play_again')}"
    from host.referee import ActUndone

    if isinstance(event, ActUndone):
        # Setup steps belong to the whole table: name what was taken back, not a player.
        if event.action == "first":
            return g.phrase("inv_undo_first", player=event.player)
        if event.action in ("suits", "lane"):
            return g.phrase("inv_undo_setup", what=_undone_text(event, lang))
        return g.phrase("undo", player=event.player or g.phrases["nobody"], number=_undone_text(event, lang))
    return ""


def describe_all(events: Sequence[Event], lang: str = "en", *, penalty: bool = False) -> list[str]:
    return [line for e in events for line in describe(e, lang, penalty=penalty).splitlines() if line]


def _undone_text(event: ActUndone, lang: str) -> str:
    from host.referee import Act

    fields = ("action", "player", "cards", "amount", "suits")
    act = Act.model_validate({name: getattr(event, name) for name in fields})
    return move_text(act.move(), lang)


def _pass_word(lang: str) -> str:
    cards = load(lang).cards
    return cards.passes[0] if cards is not None else "pass"


def move_text(move: inv.Move, lang: str = "en") -> str:
    """What a move says, for "Did you say ...?" and "only Ann can take back the 9 of hearts"."""
    if isinstance(move, inv.PlayCard):
        return card_text(move.card, lang)
    if isinstance(move, inv.LayLane):
        return cards_text(move.cards, lang)
    if isinstance(move, inv.Declare):
        return _pass_word(lang) if move.amount is None else str(move.amount)
    if isinstance(move, inv.ChooseFirst):
        return move.player
    if isinstance(move, inv.ChooseSuits):
        return _suits(move.suits, lang)
    return ""


def prompt(state: inv.State, lang: str = "en") -> str:
    """What the table must say next."""
    g = load(lang)
    if state.outcome is not None:
        return outcome_text(state.outcome, lang)
    if state.phase is inv.Phase.SUITS:
        return g.phrase("inv_ask_suits", count=len(state.players) + 1)
    if state.phase is inv.Phase.LANE:
        return g.phrase("inv_ask_lane", position=len(state.lane) + 1)
    if state.phase is inv.Phase.FIRST:
        return g.phrase("inv_ask_opener" if state.bidding else "inv_ask_first")
    player = state.current_player
    if state.phase is inv.Phase.BIDDING:
        high = state.high_bid
        if high is None and len(state.passed) == len(state.players) - 1:
            return g.phrase("inv_ask_bid_last", player=player)
        if high is None:
            return g.phrase("inv_ask_bid_first", player=player)
        return g.phrase("inv_ask_bid", player=player, bid=high)
    allowed = state.allowed()
    assert allowed is not None
    suit, rank = allowed
    return g.phrase("inv_turn", player=player, suit=suit_words(suit, lang), rank=rank)


def status(state: inv.State, lang: str = "en") -> str:
    g = load(lang)
    if state.outcome is not None:
        return outcome_text(state.outcome, lang)
    if state.phase is inv.Phase.BIDDING:
        none = g.phrases["none"]
        top = next(((p, a) for p, a in reversed(state.bids) if a is not None), None)
        high = g.phrase("inv_bid_item", player=top[0], amount=top[1]) if top else none
        passed = ", ".join(p for p in state.players if p in state.passed) or none
        return f"{g.phrase('inv_status_bidding', high=high, passed=passed)} {prompt(state, lang)}"
    if state.phase is not inv.Phase.PLAYING or state.follow is None:
        return g.phrase("inv_status_setup")
    line = g.phrase(
        "inv_status", trick=state.trick, card=card_text(state.follow, lang), tally=_tally(g, state.tally())
    )
    if state.parent is not None:
        line += " " + g.phrase("inv_status_bid", parent=state.parent, bid=state.bid)
    return line


def refusal_text(refusal: inv.Refusal, state: inv.State, lang: str = "en") -> str:
    """Why a move was not taken, then what is allowed now."""
    g = load(lang)
    f: dict[str, object] = {}
    for key, value in refusal.fields.items():
        if isinstance(value, Card):
            value = card_text(value, lang)
        elif isinstance(value, Suit):
            value = suit_words(value, lang)
        elif key == "suits" and isinstance(value, tuple):
            value = _suits(value, lang)
        f[key] = value
    reason = refusal.reason
    if reason == "card_seen":
        reason = f"card_seen_{f['where']}"
    if reason == "not_your_turn":
        return g.phrase("not_your_turn", player=f["player"])
    if reason == "not_playing":
        return g.phrase("not_playing", player=f["player"])
    if reason == "game_over":
        return g.phrase("game_finished")
    if reason == "must_follow":
        return g.phrase("inv_must_follow", **f)
    if reason == "wrong_phase":
        return f"{g.phrase('inv_not_now')} {prompt(state, lang)}"
    if reason == "lane_count":
        return prompt(state, lang)
    line = g.phrase(f"inv_{reason}", **f)
    if reason in ("bid_too_low", "must_declare"):
        return line
    return f"{line} {prompt(state, lang)}"
