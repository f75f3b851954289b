"""!nversion's words: table talk in (``words.py``), events, prompts and refusals out,
from ``grammar/<lang>/words.yaml`` over ``grammars/<lang>/``; :data:`TALK` for the game protocol.

Pure functions: the same words go to a console, an SMS and TTS.
Cards read as "9 of hearts" in English ("하트 9" in Korean); ``spoken`` reads the number
as words too, for a recogniser-friendly echo.
"""

from __future__ import annotations

from collections.abc import Sequence

import games.inversion.rules as inv
from games.base import (
    Answer,
    CardColour,
    CardMark,
    CardView,
    Command,
    FactView,
    Figure,
    Listening,
    Meaning,
    Moves,
    PartView,
    Proposal,
    ScoreView,
    Talk,
    Unclear,
    View,
)
from games.core import Event, GameOver, MoveUndone, Outcome, Refusal
from games.inversion.cards import RANKS, Card, Suit, deck
from games.inversion.words import (
    CardTalk,
    bid_phrases,
    card_phrases,
    grammar,
    no_card_phrases,
    parse_cards,
    suit_phrases,
    suit_words,
    words_of,
)
from grammars import Grammar
from grammars.reader import normalise


def card_text(card: Card, lang: str = "en") -> str:
    g = grammar(lang)
    return g.phrase(
        "inv_card",
        rank=card.rank,
        suit=suit_words(card.suit, lang),
        suits=suit_words(card.suit, lang, plural=True),
    )


#: How a screen draws each suit: its symbol and ink (red and black as printed; the clown purple).
SUIT_SYMBOLS = {Suit.CLUB: "♣", Suit.SPADE: "♠", Suit.HEART: "♥", Suit.DIAMOND: "♦", Suit.CLOWN: "★"}
SUIT_INK: dict[Suit, CardColour] = {
    Suit.CLUB: "black",
    Suit.SPADE: "black",
    Suit.HEART: "red",
    Suit.DIAMOND: "red",
    Suit.CLOWN: "purple",
}


def _card_view(card: Card, lang: str, mark: CardMark | None = None, caption: str = "") -> CardView:
    view = CardView(
        text=card_text(card, lang),
        rank=str(card.rank),
        suit=SUIT_SYMBOLS[card.suit],
        colour=SUIT_INK[card.suit],
    )
    if mark is not None:
        view["mark"] = mark
    if caption:
        view["caption"] = caption
    return view


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
    g = grammar(lang)
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
    g = grammar(lang)
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
    if isinstance(event, MoveUndone) and isinstance(event.move, inv.Move):
        move = event.move
        # Setup steps belong to the whole table: name what was taken back, not a player.
        if isinstance(move, inv.ChooseFirst):
            return g.phrase("inv_undo_first", player=move.player)
        if isinstance(move, inv.ChooseSuits | inv.LayLane):
            return g.phrase("inv_undo_setup", what=move_text(move, lang))
        return g.phrase("undo", player=event.player or g.phrases["nobody"], number=move_text(move, lang))
    return ""


def describe_all(events: Sequence[Event], lang: str = "en", *, penalty: bool = False) -> list[str]:
    return [line for e in events for line in describe(e, lang, penalty=penalty).splitlines() if line]


def _pass_word(lang: str) -> str:
    return words_of(lang).cards.passes[0]


def move_text(move: inv.AnyMove, lang: str = "en") -> str:
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
    g = grammar(lang)
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
    g = grammar(lang)
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


#: Refusals that say all there is to say: no turn prompt follows them.
_COMPLETE_REFUSALS = frozenset(
    {"not_your_turn", "not_playing", "game_over", "must_follow", "bid_too_low", "must_declare"}
)


def prompt_follows(refusal: Refusal) -> bool:
    """Whether what is allowed now (the turn prompt) follows :func:`refusal_text`."""
    return refusal.reason not in _COMPLETE_REFUSALS


def refusal_text(refusal: Refusal, state: inv.State, lang: str = "en") -> str:
    """Why a move was not taken; what is allowed now follows when :func:`prompt_follows`
    (empty for a lane of the wrong length: the prompt alone says it)."""
    g = grammar(lang)
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
        return g.phrase("inv_not_now")
    if reason == "lane_count":
        return ""
    return g.phrase(f"inv_{reason}", **f)


# -- the game protocol ---------------------------------------------------------------------------

ANSWERS = ("yes", "no")
#: What a card session listens for besides moves while a phase runs (inv.Phase values).
_SUIT_PHASES = (inv.Phase.SUITS, inv.Phase.LANE, inv.Phase.PLAYING)
_CARD_PHASES = (inv.Phase.LANE, inv.Phase.PLAYING)  # cards are said


def has_content(talk: CardTalk) -> bool:
    return bool(talk.cards or talk.suits or talk.numbers or talk.bids or talk.passed or talk.players)


def _not_understood(talk: CardTalk, state: inv.State, lang: str, about_move: bool = True) -> Unclear:
    text = grammar(lang).phrase("not_understood")
    return Unclear(text, {"type": "not_understood", "text": talk.text}, about_move, then_prompt=True)


def _ambiguous(options: list[str], lang: str) -> Unclear:
    g = grammar(lang)
    return Unclear(
        g.phrase("inv_ambiguous", cards=f" {g.phrases['or']} ".join(options)),
        {"type": "ambiguous", "options": options},
    )


def _propose(talk: CardTalk, state: inv.State, player: str | None, lang: str) -> Proposal:
    """The move the words make in the game's phase, or what to answer."""
    phase = state.phase
    if phase is inv.Phase.SUITS and talk.suits and not talk.cards:
        return Moves((inv.ChooseSuits(talk.suits),))
    if phase is inv.Phase.LANE and talk.cards and not (talk.numbers or talk.suits or talk.bids):
        return Moves((inv.LayLane(talk.cards),))
    if phase is inv.Phase.FIRST and len(set(talk.players)) == 1 and not talk.cards:
        return Moves((inv.ChooseFirst(talk.players[0]),))
    if phase is inv.Phase.BIDDING and player is not None and not talk.cards:
        amounts = tuple(dict.fromkeys(talk.bids or talk.numbers))
        if talk.passed and not amounts:
            return Moves((inv.Declare(player, None),))
        if len(amounts) == 1 and not talk.passed:
            return Moves((inv.Declare(player, amounts[0]),))
        if amounts or talk.passed:
            passed = [move_text(inv.Declare(player, None), lang)] if talk.passed else []
            return _ambiguous([*map(str, amounts), *passed], lang)
    if phase is inv.Phase.PLAYING and player is not None:
        cards = tuple(dict.fromkeys(talk.cards))
        if len(cards) == 1:
            return Moves((inv.PlayCard(player, cards[0]),))
        if len(cards) > 1:
            return Moves(tuple(inv.PlayCard(player, c) for c in cards))
        return _half_card(talk, state, lang)
    if phase is inv.Phase.LANE:
        return _half_card(talk, state, lang)
    return _not_understood(talk, state, lang)


def _face_said(talk: CardTalk, lang: str) -> str | None:
    """The face card named ("queen of hearts": "queens"), if any: no card of this game."""
    faces = words_of(lang).cards.faces
    return next((faces[w] for w in talk.leftovers if w in faces), None)


class _Event(dict[str, object]):
    """An Unclear's event that can be a heard meaning (hashed when readings pool)."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted((k, str(v)) for k, v in self.items())))


def _no_faces(face: str, text: str, lang: str) -> Unclear:
    """ "queen of hearts": cards are 1 to 10, there is no queen to ask about. Typed or heard
    (the listener listens for it: :func:`no_card_phrases`), the same answer."""
    line = grammar(lang).phrase("inv_no_faces", faces=face)
    return Unclear(line, _Event(type="not_a_card", text=text), then_prompt=True)


def _half_card(talk: CardTalk, state: inv.State, lang: str) -> Unclear:
    """A number or a suit without the rest of the card: ask for the rest."""
    g = grammar(lang)
    face = _face_said(talk, lang)
    if face is not None:
        return _no_faces(face, talk.text, lang)
    suit = state.follow.suit if state.follow is not None else (state.suits or (None,))[0]
    numbers = tuple(dict.fromkeys(talk.numbers))
    if len(numbers) == 1 and numbers[0] in RANKS and suit is not None and not talk.suits:
        example = card_text(Card(numbers[0], suit), lang)
        return Unclear(
            g.phrase("inv_which_card", rank=numbers[0], example=example),
            {"type": "which_card", "rank": numbers[0]},
        )
    if numbers and not any(n in RANKS for n in numbers):
        return Unclear(
            g.phrase("inv_not_a_card"), {"type": "not_a_card", "text": talk.text}, then_prompt=True
        )
    if len(talk.suits) == 1 and not numbers:
        example = card_text(Card(9, talk.suits[0]), lang)
        return Unclear(
            g.phrase("inv_which_of_suit", suit=suit_words(talk.suits[0], lang), example=example),
            {"type": "which_card", "suit": talk.suits[0].value},
        )
    return _not_understood(talk, state, lang)


def meaning(talk: CardTalk, phase: inv.Phase | None, confirming: bool = False) -> Meaning:
    """The one thing ``talk`` says in ``phase`` (None: no game) for a recogniser: a Command,
    or a stand-in move ("" for the player); None: several things, or stray words."""
    commands = tuple(dict.fromkeys(talk.commands))
    if commands:
        if len(commands) > 1 or has_content(talk):
            return None
        if commands[0] in ANSWERS and not confirming:
            return None  # "네" with nothing asked is table talk
        return Command(commands[0])
    cards = tuple(dict.fromkeys(talk.cards))
    stray = bool(talk.suits or talk.numbers or talk.bids or talk.passed)
    if phase is inv.Phase.PLAYING and len(cards) == 1 and not stray:
        return inv.PlayCard("", cards[0])
    if phase is inv.Phase.LANE and talk.cards and not stray:
        return inv.LayLane(talk.cards)
    if phase is inv.Phase.SUITS and talk.suits and not (talk.cards or talk.numbers or talk.bids):
        return inv.ChooseSuits(talk.suits)
    if phase is inv.Phase.FIRST and len(set(talk.players)) == 1 and not (cards or stray):
        return inv.ChooseFirst(talk.players[0])
    if phase is inv.Phase.BIDDING and not (cards or talk.suits):
        amounts = tuple(dict.fromkeys(talk.bids or talk.numbers))
        if talk.passed and not amounts:
            return inv.Declare("", None)
        if len(amounts) == 1 and not talk.passed:
            return inv.Declare("", amounts[0])
    return None


def said_whole(text: str, said: Meaning, lang: str) -> bool:
    """Whether every card of ``said`` is in ``text`` as one of its phrases, word for word.

    The decoder's word model lets phrases mix: with "다이아 이" and "클로버 오" listened
    for it can write "이 다이아" or "다이아 오" out of chatter. The parser reads "이 다이아"
    as a card too (rank first, the English order); a card the recogniser heard must have
    been heard as a phrase it listened for.
    """
    if isinstance(said, inv.PlayCard):
        heard: tuple[Card, ...] = (said.card,)
    elif isinstance(said, inv.LayLane):
        heard = said.cards
    else:
        return True
    padded = f" {text} "
    return all(any(f" {p} " in padded for p in card_phrases([c], lang)) for c in heard)


def allowed_bids(game: inv.State) -> list[int]:
    """Declarations the current player may make now."""
    player = game.current_player
    if player is None:
        return []
    return [n for n in range(inv.TRICKS + 1) if inv.refusal(game, inv.Declare(player, n)) is None]


def move_phrases(lang: str, game: inv.State, names: Sequence[str] = ()) -> list[str]:
    """The phrases that make a move in the game's phase."""
    phase = game.phase
    if phase is inv.Phase.SUITS:
        return suit_phrases(lang)
    if phase is inv.Phase.LANE:
        return card_phrases(sorted(game.unseen), lang)
    if phase is inv.Phase.FIRST:
        return [normalise(n) for n in names]
    if phase is inv.Phase.BIDDING:
        return bid_phrases(allowed_bids(game), lang)
    if phase is inv.Phase.PLAYING:
        return card_phrases(inv.playable(game), lang)
    return []


def _with_player(move: inv.Move, state: inv.State | None) -> inv.Move:
    """A stand-in move from speech made the current player's."""
    player = state.current_player if state is not None else None
    if isinstance(move, inv.PlayCard) and player is not None:
        return inv.PlayCard(player, move.card)
    if isinstance(move, inv.Declare) and player is not None:
        return inv.Declare(player, move.amount)
    return move


class InversionTalk(Talk[inv.State, inv.Move, inv.Options]):
    # No calibration: the pooled share is the confidence. Every card or bid counts at once,
    # so every move is costly (the default): a misheard one is read back.

    def read(
        self,
        text: str,
        state: inv.State | None,
        players: tuple[str, ...],
        speaker: str | None,
        asked: inv.Move | None,
        lang: str,
    ) -> Proposal:
        g = grammar(lang)
        talk = parse_cards(text, lang, players=players)
        if asked is not None and state is not None:
            said = set(talk.commands)
            if "yes" in said and "no" not in said and not has_content(talk):
                return Answer(True)
            if ("no" in said or "undo" in said) and not has_content(talk):
                # "Undo" while asked means "not that", not "take back the move before".
                return Answer(False)
            if has_content(talk):
                # "No, the ten of hearts": read afresh as the asked player's words.
                owner = asked.player if isinstance(asked, inv.Declare | inv.PlayCard) else None
                return _propose(talk, state, owner or speaker or state.current_player, lang)
        commands = [c for c in talk.commands if c not in ANSWERS]
        if commands and not has_content(talk):
            return Command(commands[0])
        if state is None or state.is_over:
            if talk.commands and not has_content(talk):
                return Command(talk.commands[0])
            return Unclear(g.phrase("game_finished" if state else "no_game"), {})
        if commands:
            return _not_understood(talk, state, lang, about_move=False)
        return _propose(talk, state, speaker or state.current_player, lang)

    def describe(self, events: Sequence[Event], options: inv.Options, lang: str) -> list[str]:
        return describe_all(events, lang, penalty=options.revoke_penalty is inv.Penalty.TRICK)

    def prompt(self, state: inv.State, lang: str) -> str:
        return prompt(state, lang)

    def view(self, state: inv.State, lang: str) -> View:
        # The lane and the trick lie face up; hands are real cards the host never sees.
        view = View(facts=[], scores=[ScoreView(label="Tricks", values=dict(state.tally()), big=True)])
        facts = view["facts"]
        if state.phase in (inv.Phase.PLAYING, inv.Phase.OVER) and state.trick:
            facts.append(FactView(label="Trick", value=f"{state.trick} / {inv.TRICKS}"))
        if state.suits:
            facts.append(FactView(label="Suits", value="\u2009".join(SUIT_SYMBOLS[s] for s in state.suits)))
        if state.parent is not None and state.bid is not None:
            facts.append(FactView(label="Parent", value=f"{state.parent} {state.bid}"))
        if state.bids and state.parent is None:
            passed = words_of(lang).cards.passes[0]
            bids: dict[str, Figure] = {p: passed if a is None else a for p, a in state.bids}
            view["scores"].append(ScoreView(label="Bid", values=bids))
        lane = [_card_view(c, lang) for c in state.lane]
        if state.phase is inv.Phase.PLAYING and state.follow is not None:
            # Tricks before this one took their lane card; this trick's lies (or, after an
            # inversion, the card that replaced it) as the follow card.
            for i in range(state.trick - 1):
                lane[i]["mark"] = "used"
            lane[state.trick - 1] = _card_view(state.follow, lang, mark="now")
        elif state.phase is inv.Phase.OVER:
            lane = [_card_view(c, lang, mark="used") for c in state.lane]
        lane += [CardView(text="", mark="empty") for _ in range(inv.LANE - len(lane))]
        view["parts"] = [PartView(label="Lane", big=True, cards=lane)]
        if state.plays and state.phase is inv.Phase.PLAYING:
            # An inverter's card went into the lane; the one they took counts in the trick.
            played = [_card_view(p.counts, lang, caption=p.player) for p in state.plays]
            view["parts"].append(PartView(label="This trick", cards=played))
        return view

    def status(self, state: inv.State, lang: str) -> str:
        return status(state, lang)

    def rules(self, options: inv.Options, lang: str) -> str:
        return grammar(lang).phrase("inv_rules")

    def help(self, lang: str) -> str:
        return grammar(lang).phrase("inv_help")

    def refusal_text(self, refusal: Refusal, state: inv.State, lang: str) -> str:
        return refusal_text(refusal, state, lang)

    def prompt_follows(self, refusal: Refusal) -> bool:
        return prompt_follows(refusal)

    def move_text(self, move: inv.AnyMove, lang: str) -> str:
        return move_text(move, lang)

    def ambiguous(self, candidates: tuple[inv.Move, ...], lang: str) -> Unclear:
        return _ambiguous([move_text(m, lang) for m in candidates], lang)

    def echo_confusable(self, move: inv.Move, lang: str, *, echoing: bool = True) -> tuple[inv.Move, ...]:
        # Any room that rings, echoing or not: the suit ends a card, so an echo's tail makes
        # nothing of its rank ("seven of hearts" was ruled as "ten of hearts" in a room of 0.65 s).
        if isinstance(move, inv.PlayCard):
            ranks = sorted({said for said, heard in words_of(lang).room_ranks if heard == move.card.rank})
            return tuple(inv.PlayCard(move.player, Card(r, move.card.suit)) for r in ranks)
        return ()

    def likely(self, state: inv.State, move: inv.Move) -> bool | None:
        # Words that name no card of this game (a face card, a suit not in play) are
        # listened for to be refused as said: heard, they were said, not a slip for a
        # nearer card the prior would prefer.
        if isinstance(move, Unclear):
            return True
        if isinstance(move, inv.PlayCard) and state.suits and move.card.suit not in state.suits:
            return True
        return None

    # -- speech --

    def listen_for(
        self, state: inv.State, players: tuple[str, ...], lang: str, confirming: bool
    ) -> Listening:
        if confirming:
            return Listening()
        g = grammar(lang)
        left_out = g.card_lookalikes if state.phase in _SUIT_PHASES else ()
        phrases = move_phrases(lang, state, players)
        if state.phase in _CARD_PHASES:
            phrases += no_card_phrases(state.suits, lang)  # heard as said, then refused
        return Listening(tuple(dict.fromkeys(phrases)), tuple(left_out))

    def vocabulary(self, players: tuple[str, ...], options: inv.Options, lang: str) -> list[str]:
        return [
            *suit_phrases(lang),
            *card_phrases(sorted(deck(tuple(Suit))), lang),
            *no_card_phrases((), lang),
            *bid_phrases(range(inv.TRICKS + 1), lang),
            *(normalise(n) for n in players),
        ]

    def hear(
        self, text: str, state: inv.State | None, players: tuple[str, ...], confirming: bool, lang: str
    ) -> tuple[Meaning, float]:
        phase = state.phase if state is not None and not state.is_over else None
        talk = parse_cards(text, lang, players=players)
        face = _face_said(talk, lang)
        if phase in _CARD_PHASES and face is not None and len(talk.leftovers) == 1 and len(talk.suits) == 1:
            # "queen of hearts", a phrase listened for so as not to hear "one of hearts"
            return _no_faces(face, talk.text, lang), 1.0
        said = meaning(talk, phase, confirming)
        if said is None or not said_whole(text, said, lang):
            return None, 1.0
        if isinstance(said, inv.PlayCard | inv.Declare):
            said = _with_player(said, state)
        return said, 1.0


TALK = InversionTalk()
