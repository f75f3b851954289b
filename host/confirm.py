"""When a ruling is read back first ("Did you say 15?"), and how the question is put.

Misrecognition must not cost anyone. The referee rules typed words as they stand; what was
heard is read back before it counts when:

* it is a command that takes something back or ends something (:data:`DESTRUCTIVE`) heard
  unsurely, or heard at all by an open microphone (:func:`command_read_back`);
* it is a move that would cost its mover (``Talk.costly``) and the hearing is unsure, or
  a move easily confused with it, or another reading of the same sound, would cost nothing
  (:func:`needs_confirmation`);
* the hearing itself is doubtful, whatever the move (:func:`doubtful`: the listener's
  shares, rivals, the room's noise and echo), even a move the rules refuse: the refusal
  follows a yes.

A listener (``host/listening/``) also drops what is too shaky even to ask about; the shares
it needs to act on a command or an answer at all are here too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.base import Command, Moves, Proposal, Talk
from grammars import load
from host.session import Table
from host.speech.hearing import Hearing

#: Commands that take something back or end something: heard unsurely, they are read back.
#: At a table's microphone chatter must not trigger them, so they must also be what the
#: decoder's best path says, with at least DESTRUCTIVE_SHARE of the share.
DESTRUCTIVE = ("undo", "finish", "leave", "new_game")
DESTRUCTIVE_SHARE = 0.5
#: While a question waits, what is heard must be the decoder's best path with this share to
#: count as the answer (yes, no, or the move said again).
ANSWER_SHARE = 0.5
#: In a room that rings or is noisy, a command that only tells something or says yes or no
#: (whose turn, repeat, the rules, the score, help) is talk unless read from at least this
#: share of the sound: the talk the room benches' tables answered so was read from toss-ups
#: of the search and the lattice (host/speech/sphinx.py): someone's "yes" after "evening
#: everybody, what a crowd" as "status" (0.5, "eight" the rest), "that's right" as "score"
#: (0.5, "bob"), "ha ha ha that's hilarious" as "how to play" (0.5), 5 of the 20 sentences
#: answered in the dumps (tests/bench/bench_room.py). Not while a question waits
#: (:data:`ANSWER_SHARE`). A player not answered says it again.
TELLING_COMMAND_SHARE = 0.75
#: A move read from less than this share of the hearing is read back, even when it would
#: cost nothing: espeak-ng's "sixty six" heard as 62 (share 0.46) would have been ruled at
#: once; moves heard right held 0.81 or more (tests/bench/bench_table_talk.py --dump).
MOVE_SHARE = 0.75
#: A move is read back, even when it would cost nothing, while another reading at least this
#: fraction as strong is a different move players would usually make now: one of the two
#: is a wrong number in the chain, and a read-back costs less. Ruled wrong at once before:
#: espeak-ng's "ten" in white noise as "two" (rival "ten" at 0.27 of its weight), Piper's
#: "fifty three" in fan noise 10 dB as "thirty three" (0.18); moves heard right had rivals
#: of 0.13 or less in the English benches' dumps (tests/bench/bench_table_talk.py --dump).
RIVAL_SHARE = 0.15
#: :data:`RIVAL_SHARE` in a noisy room (``Doubts._noisy``, host/listening/doubts.py): there a
#: weak second reading is the word said often enough. espeak-ng's "ten" in fan noise 20 and
#: 10 dB below was ruled as "two" with "ten" at 0.05 and 0.07 of its weight, "thirteen" in
#: fan noise 10 dB as "thirty five" with "thirty four" at 0.04; of the moves heard right in
#: the English noise benches, 2-6 of 82 per run had a rival this strong and are read back.
NOISY_RIVAL_SHARE = 0.03
#: :data:`NOISY_RIVAL_SHARE` for a move of one word in a room that rings: one word is little
#: to tell talk by. Unseen voices in unseen rooms had a laugh ("hee hee", Piper pitched down
#: 150 cents, RT60 0.72 s) heard as "eighty" and "nope" (espeak-ng en-gb-x-rp+m5, RT60 0.59
#: s, fan noise) as "eleven", with 0.947 and 0.98 of the weight and a likely rival at 0.019-
#: 0.027 of it, and ruled: a number said for a player on talk. In the room benches' dumps
#: those were the only talk of one word ruled; of the 175 moves of one word ruled right 14
#: had a rival at 0.015-0.03 (read back now; at 0.01, 19). None: as :data:`NOISY_RIVAL_SHARE`.
RINGING_LONE_RIVAL_SHARE: float | None = 0.015
#: :data:`RIVAL_SHARE` for a rival the game lists as a move the recogniser often hears as
#: this one (``Talk.confusable``, confusions.yaml: nineteen and ninety), in a quiet room too.
#: At a dry table espeak-ng's held-out f4 voice had its "nineteen" ruled as 90 with
#: "nineteen" at 0.137 of its weight, both good moves; moves heard right had such a rival at
#: 0.09 or less (Piper's "forty" with "fourteen" at 0.08-0.09, tests/table/test_english_table.py
#: and test_table_exit.py; the benches' dumps 0.013-0.07; docs/speech.md). A thin margin:
#: it catches that mishearing, not its whole kind.
CONFUSED_RIVAL_SHARE = 0.12
#: An utterance whose speech stood less than this far above the noise floor (dB, see
#: ``Hearing.snr_db``) was heard in a loud room: a move read from it is read back, and
#: anything heard right after talk is dropped as a reply to it. White or fan noise 20 dB
#: below a voice measures 23-29 dB, 10 dB below 13-19 dB. With Vosk (Korean) in white noise
#: 10 dB below, 0 of 75 moves were heard right, 2 of 75 talk sentences' replies were ruled as
#: moves and a card was given on "카운터" heard as "했어". English is heard through the
#: denoiser (host/speech/denoise.py), whose output stands far above its floor.
LOUD_SNR_DB = 20.0
#: A room whose reverberation time is measured at this (s) or more echoes so that a move
#: is heard as another with no doubt at all: in a tiled kitchen of RT60 0.9 s (measured
#: 0.81-1.02 s) espeak-ng's "plays u turn turned" and "plays whisper turned" were heard as
#: "plays heirloom" with the whole share and no rival, and ruled. There every move is read
#: back. A living room of 0.6 s measures 0.67-0.74 s (tests/bench/bench_room.py, docs/speech.md
#: "Hearing in a room").
ECHOING_RT60 = 0.8
#: In a room that rings but does not echo, a move is read back while a move players would
#: usually make now is one such a room may have heard as it however surely (the game's
#: ``echo_confusable`` not echoing: grammars/en/confusions.yaml ``echoes.ringing_units``).
#: A voice no bench was tuned on (espeak-ng en-us+f4) in an unseen room of RT60 0.51 s had
#: "forty five" heard as "forty nine", the whole share, no rival, words at 0.87 and 0.94, and
#: ruled; in that room its "sixty five" was heard as "sixty nine" too (read back for a
#: rival). False: such a move is ruled as any other there.
RINGING_RUNG = True
#: In a room that echoes a move is ruled at once only when it holds at least this share of
#: the sound (with no rival and no likely move heard as it, as in any ringing room): the
#: decoders' means adapted to rooms (host/speech/mllr.py) took the heirloom hearings out,
#: and in the kitchen the moves heard with 0.95 or more were all heard right; "seventy"
#: was heard as "seventeen" with 0.80 there. Above 1: every move read back. Nor may any
#: likely move be among its other readings at all (``rival`` > 0, not the ringing room's
#: :data:`NOISY_RIVAL_SHARE`): there a tail is heard as a word and a word's end is lost in
#: the tail with nearly the whole share, the word said a faint second (tests/bench/
#: bench_confusions.py, kitchen: "fifty" heard as "fifty eight" with 0.99, "fifty" 0.01;
#: "ninety" as "nineteen" with 0.99, "ninety" 0.01).
ECHOING_SHARE = 0.95
#: In a room that rings but is not noisy, a move the recogniser often hears for another
#: likely one (``confused``) is ruled at once when decoders adapted to rooms heard it as
#: surely as a room that echoes asks (:data:`ECHOING_SHARE`, no likely move at all among its
#: other readings); else it is read back, as in noise. In the room benches' dumps
#: (tests/bench/bench_room.py --dump, tuning and unseen rooms and voices) 89 such hearings
#: were all right; the 4 such mishearings all had a likely move among their readings ("forty
#: two" heard as "fourteen" with 0.99, "forty two" 0.012), and a teen heard as a tens-and-unit
#: number held at most 0.78 (tests/bench/bench_confusions.py). Read back, nearly every game
#: of Up-or-Down began with a question: den / living room, Piper, right first try 33 -> 35
#: and 28 -> 29 of 40 (docs/speech.md "Hearing in a room"). False: read back. Such a move
#: must also have every word heard with at least :data:`RINGING_CONFUSED_WORD`: a voice no
#: bench was tuned on (espeak-ng en-029+m4) had "seventy three" heard as "sixty three" with
#: the whole share and no rival, twice ("sixty" 0.785 and 0.831), and ruled.
RINGING_CONFUSED_RULED = True
#: Of 256 such sure hearings in the dumps' ringing rooms 253 were right and 3 were that
#: mishearing (weakest word 0.774-0.831); at 0.85, 12 of the right ones are read back
#: instead and none of the wrong ones is ruled.
RINGING_CONFUSED_WORD = 0.85
#: In a room that rings a move is read back when a word of it was heard with less than this
#: posterior (the lattice's, where the recogniser gives posteriors: pocketsphinx): in the
#: room benches' dumps no move ruled right in a ringing room had a word below 0.79 (891
#: moves, tuning and unseen rooms and voices), while the tuning voice piper-down in an
#: unseen room of RT60 0.94 s had "reveals a secret landslide" heard as "reveals a secret
#: shortcut" with 0.97 of the sound, no rival, "reveals" at 0.74, and ruled: a secret
#: revealed on a mishearing (docs/speech.md "Hearing in a room"). At 0.78 two more were
#: ruled wrong in unseen rooms: piper-down's "reveals a secret bury" as "purge" (weakest
#: word 0.794) and espeak-ng en-029+m4's "seventy three" as "sixty three"
#: ("sixty" 0.785, a voice no bench was tuned on). At 0.8, 11 of 3,472 moves the dumps'
#: ringing rooms ruled right are read back instead (the lowest 0.788).
RINGING_WEAK_WORD = 0.8
#: ... and so it is in a noisy room that does not ring, or is not measured to yet: an
#: unseen voice (espeak-ng en-us+f4) in an unseen room of RT60 0.39 s with white noise 20
#: dB below, measured at 0.27-0.51 s as the game went on, had "seventy three" heard as
#: "twenty three", 0.99 of the sound, "twenty" at 0.789, and ruled while the room measured
#: below 0.3 s. At the dry table with white or fan noise 20 dB below no move ruled right
#: in the benches' dumps had a word below 0.806 (347 distinct). False: rings only.
NOISY_WEAK_WORD = True
#: In a room that rings a move that would cost its mover (``Talk.costly``: a secret
#: revealed, a card played or given, a challenge) is read back when a word of it was heard
#: with less than this posterior, a higher bar than :data:`RINGING_WEAK_WORD`'s for any
#: move. A voice no bench was tuned on (espeak-ng en-gb-x-gbclan+m3, Lancaster) had "reveals
#: a secret bury" heard as "reveals a secret second wind" in an unseen room of RT60 0.63 s,
#: the whole share, no rival, "second" at 0.823, and ruled. In the dumps' ringing rooms 7
#: moves were ruled wrong, 6 of them with a word below 0.85; raising the bar for every move
#: would read back about 76 of 1,886 moves ruled right there (4 %). None: off.
RINGING_COSTLY_WORD: float | None = 0.85
#: In a room that echoes (:data:`ECHOING_RT60`) a move known by a name of its own
#: (``Talk.by_name``: an Upside-Out card's) is read back however sure the hearing. Voices no
#: bench was tuned on, in unseen rooms of RT60 0.89 and 0.93 s, had "plays purge turned"
#: and "plays rummage turned" heard as "plays hush turned" with the whole share, no rival,
#: every word 0.88 or more, and ruled. In the room benches' dumps, such card moves ruled
#: right in rooms of RT60 0.75 s or more had a weakest word of 0.81-0.94, their sure
#: mishearings 0.74-0.89: no bar separates them. Cards known by number and suit or colour
#: were misheard so far less (in all the dumps' rooms 1 of 1,195 ruled wrong, a loose fit
#: mended since; named cards 5 of 379), and reading every costly move back in rooms of
#: 0.8 s or more would read back about 380 of their 526 moves ruled right (52 named).
#: False: such a move is ruled as any other is there.
ECHOING_NAME_READ_BACK = True
#: In a room that rings, a move known by name is read back while any likely move is among
#: its other readings at all (not only from :data:`NOISY_RIVAL_SHARE`): a misheard name
#: holds nearly the whole share, the name said at most a trace. An unseen voice (espeak-ng
#: en-us+m4) in an unseen room of RT60 0.49 s with white noise 20 dB below had "reveals a
#: secret stash" heard as "reveals a secret hush", share 0.97, "stash" at 0.0297 of its
#: weight, just under that bar, and ruled. In the dumps, 26 named card moves were ruled
#: right with such a trace of a rival (and 390 with none). False: off.
RINGING_NAME_RIVAL = True
#: ... and so in a noisy room, whether it rings or not, or is not measured yet: an unseen
#: voice (espeak-ng en-us+f2) in an unseen room of RT60 0.9 s with white noise 20 dB below,
#: which the names had not measured (no decay readable that near the noise), had "plays
#: bury" heard as "plays heirloom", share 0.93, "plays bury" at 0.022 of its weight, and
#: ruled as the first move of the game. At the dry table with white or fan noise 20 dB
#: below, 1 of 100 named card moves ruled right in the benches' dumps had such a trace.
#: False: rings only.
NOISY_NAME_RIVAL = True
#: In a room that rings, what was heard with a word below this posterior is dropped, not
#: read back: too shaky even to ask about. A voice no bench was tuned on (espeak-ng
#: en-us+m2) said "evening everybody, what a crowd" in unseen rooms of RT60 0.77 and 0.98 s;
#: it was heard as "eleven", the one word stretched over 1.3-1.9 s at 0.57-0.68, and read
#: back: 2 sentences of 40 in one room, above the 3 % of talk the table may ask about. Of
#: the English hearings the room benches' dumps acted on, none heard right had a word below
#: 0.74; below 0.7 were those and one mishearing, read back. The best path's words,
#: whichever reading is taken: an unseen voice's "hmm, let me" in an unseen room of RT60
#: 0.97 s was heard as "thirty" at 0.665 over 1.6 s, taken as 33, and read back. None: off.
RINGING_DROP_WORD: float | None = 0.7
#: ... and so is what had a word before its last below this posterior: a room's tail
#: weakens a move's last word (heard right down to 0.77 in moves of two words or more, a
#: lone word to 0.745), not those before it. An unseen voice (Piper fast, pitched up)
#: said "so what I was saying was" in an unseen room of RT60 0.84 s with fan noise 20 dB
#: below; it was heard as "draws a card", the whole share, no rival, "draws" at 0.803
#: over 0.63 s, and ruled: Bob drew a card on talk. Of 1,163 distinct English hearings of
#: two words or more acted on in the room benches' dumps (tuning and unseen rooms, voices,
#: noise), those heard right had every word before the last at 0.816 or more (ruled:
#: 0.838); below 0.81 were only talk ("plays decoy", "leave the game", "i'm leaving",
#: "draws a card") and moves heard wrong ("club nine", "plays backfire" for "plays
#: backfire turned"). Whichever reading is taken: an unseen voice's (espeak-ng
#: en-gb-scotland+m4) "hmm, let me" in an unseen room of RT60 0.71 s was heard as "thirty
#: three", "thirty" at 0.75-0.78, taken as 30 (a toss-up with "thirty") and read back, 3
#: sentences of 40; no move was acted on from such a hearing in the dumps. None: off.
RINGING_INNER_DROP_WORD: float | None = 0.81
#: At a table's microphone with no question waiting, in a room that rings, a command heard
#: with a word below :data:`RINGING_WEAK_WORD` is dropped: a move heard so is read back, but
#: a command that only tells is not worth a question and one that ends something must be
#: said again anyway. An unseen voice (Piper pitched up 150 cents) in an unseen room of
#: RT60 0.88 s with fan noise 20 dB below had "mirror mirror on the wall" heard as "rules"
#: (0.73, over 1.2 s) and the rules read out over the talk, and "about fifty people came"
#: as "i'm leaving" ("leaving" 0.72-0.74) and read back twice: 2 of 40 sentences, above
#: the 3 % of talk the table may ask about. In the room benches' dumps the commands acted on
#: with such a word were all talk or moves misheard ("thirty seven" answered as "say again",
#: 0.72-0.76); of the moves heard right in ringing rooms 3 % had one (30 of 896), so a
#: command said there is now and then said twice. False: off.
RINGING_WEAK_COMMAND_DROP = True


def word_below(weakest_word: float | None, bar: float | None) -> bool:
    """Whether a hearing's weakest word posterior is below ``bar`` (``weakest_word`` None:
    no posteriors; ``bar`` None: off)."""
    return bar is not None and weakest_word is not None and weakest_word < bar


#: :data:`RINGING_COSTLY_WORD` in a room that echoes (:data:`ECHOING_RT60`). An unseen voice
#: (espeak-ng en-gb-x-gbcwmd+m5, West Midlands) in an unseen room of RT60 0.99 s had
#: !nversion's "five of hearts" ruled as "four of hearts" (a revoke called), the whole
#: share, no rival, weakest word 0.860. In the room benches' dumps 758 costly moves were
#: ruled right in rooms of RT60 0.8 s or more and 8 wrong, the wrong ones' weakest words
#: 0.74-0.89: at 0.92, 283 of the right ones are still ruled at once and none of the wrong
#: (at 0.9, 491: too near). Reading every costly move back there (tried) left the kitchen 6
#: of 40 moves right first try, Piper.
ECHOING_COSTLY_WORD: float | None = 0.92


#: In a room that rings and is noisy, a costly move a longer phrase listened for goes on
#: from is read back (in one that echoes, every such move is: ``doubtful``'s ``goes_on``):
#: the noise and the tail swallow a soft last word. An unseen voice (Piper, length scale
#: 0.9) in an unseen room of RT60 0.34 s with white noise 20 dB below had Upside-Out's
#: "plays backfire turned" heard as "plays backfire", the whole share, no rival, words 0.90
#: and 0.87, and ruled: the card played face up. In the benches' dumps "turned" was
#: swallowed so 18 times (10 in rooms with noise); no word's length or posterior told those
#: from a face-up play heard right. A move that costs nothing (a good number) is not held.
#: False: off.
NOISY_RINGING_GOES_ON = True


#: In a room that rings a costly move is read back when its words had a silence of at least
#: this long (s) between two of them: the room's tail fills a word's gap, so this is a pause,
#: and talk read as a move is made of its phrases. Voices no bench was tuned on (espeak-ng
#: en-gb-x-rp+m5, en-us+m7, en-gb+f3) in unseen rooms of RT60 0.39-0.9 s had "turn it up,
#: I love this song" heard as Blófa's "two yellow cards six" (or one, four), the whole share,
#: every word 0.90 or more once, and ruled: in 9 such hearings "yellow" and "cards" were
#: 0.2-0.34 s apart. Of 2,905 English moves of two words or more heard right in the benches'
#: dumps (dry and rooms; voices that do not pause inside a move) 2 had such a pause (0.32 s
#: of a "keep yellow" read back anyway, 0.96 s of a "plays whisper turned" dropped). A
#: player who pauses inside a costly move is asked to confirm it. None: off.
RINGING_COSTLY_PAUSE_S: float | None = 0.2


def weak_for_costly(
    rings: bool, weakest_word: float | None, echoing: bool, cut_short: bool = False, pause: float = 0.0
) -> bool:
    """Whether a hearing in a room that ``rings`` had a word too weak to rule a costly move
    on (:data:`RINGING_COSTLY_WORD`; in one that is ``echoing``, :data:`ECHOING_COSTLY_WORD`),
    may be such a move ``cut_short`` (a longer phrase goes on from it, in a noisy room:
    :data:`NOISY_RINGING_GOES_ON`), or had a ``pause`` (s) between its words
    (:data:`RINGING_COSTLY_PAUSE_S`)."""
    bar = ECHOING_COSTLY_WORD if echoing and ECHOING_COSTLY_WORD is not None else RINGING_COSTLY_WORD
    paused = RINGING_COSTLY_PAUSE_S is not None and pause >= RINGING_COSTLY_PAUSE_S
    return rings and (word_below(weakest_word, bar) or (cut_short and NOISY_RINGING_GOES_ON) or paused)


def too_doubtful(
    rings: bool, posteriors: bool, hearing: Hearing, at_table: bool, command: bool
) -> str | None:
    """Why a hearing is dropped as too doubtful even to ask about (None: it is not): where
    the room ``rings`` and the recogniser's word confidences are ``posteriors``, a word
    of the best path below :data:`RINGING_DROP_WORD` or one before its last below
    :data:`RINGING_INNER_DROP_WORD`, whichever reading was taken; at a table's
    microphone with no question waiting (``at_table``), there a ``command`` with a word below
    :data:`RINGING_WEAK_WORD` (:data:`RINGING_WEAK_COMMAND_DROP`), words that leave
    :data:`UNEXPLAINED_SPEECH_S` of the speech after them unexplained, a word before the
    last stretched over :data:`INNER_WORD_DROP_S` (in a room that rings,
    :data:`RINGING_INNER_DROP_S`), a lone word heard while others talked
    (:data:`CROWDED_LONE_WORD_DROP`), or a ``command`` whose words do not fit
    the speech (:func:`loose_fit`): a move is read back then, but a command that only tells is
    not worth a question, and one that ends something must be said again anyway. An unseen
    voice's "whoa, didn't see that coming" in an unseen room of RT60 0.85 s was heard as
    "what can i say", its "what" stretched over 0.94-1.07 s, the whole share, and the list
    of what can be said was read out over the talk; in every bench dump no command heard
    without a question waiting was a loose fit but talk (10 sentences)."""
    weighs = rings and posteriors
    if weighs and word_below(hearing.weakest_word, RINGING_DROP_WORD):
        return "too weak to ask about"
    if weighs and word_below(hearing.weakest_inner_word, RINGING_INNER_DROP_WORD):
        return "a word before the last too weak to ask about"
    if (
        weighs
        and at_table
        and command
        and RINGING_WEAK_COMMAND_DROP
        and word_below(hearing.weakest_word, RINGING_WEAK_WORD)
    ):
        return "a command too weak to act on"
    after = hearing.speech_after_words
    if at_table and UNEXPLAINED_SPEECH_S is not None and after >= UNEXPLAINED_SPEECH_S:
        return "words explain too little of the speech"
    if at_table and command and loose_fit(hearing):
        return "words do not fit the speech"
    one_word = len(hearing.text.split()) == 1
    if at_table and CROWDED_LONE_WORD_DROP and hearing.crowded and one_word:
        return "a lone word in company"
    if at_table and rings and RINGING_DOUBTED_DROP and hearing.doubted and one_word:
        return "a lone word the dry table's gate hears as talk"
    stretched = RINGING_INNER_DROP_S if rings and RINGING_INNER_DROP_S is not None else INNER_WORD_DROP_S
    if at_table and stretched is not None and hearing.longest_inner_word >= stretched:
        return "a word stretched over sound not its own"
    return None


#: A move is read back when its words do not fit the speech they were heard in: speech
#: went on for at least this long (s) after its last word. espeak-ng en-gb+m6 said "Ann and
#: Bob are arguing again" in an unseen room of RT60 0.73 s; the decoder fitted "I'll draw"
#: to its first 0.94 s, with the whole share and words at 0.93 and 0.88, and 0.75 s of
#: speech after it; it was ruled. Of the 284 moves the room benches' dumps acted on (tuning
#: and unseen rooms and voices) none had more than 0.26 s after its last word. None: off.
SPEECH_AFTER_WORDS_S: float | None = 0.5
#: At a table's microphone, with no question waiting, what was heard is dropped, not read
#: back or answered, when speech went on this long (s) after its words: they explain too
#: little of what was said to be said to the host. In every bench dump (3,753 distinct
#: moves acted on, English and Korean, dry, noisy, rooms, tuning and unseen voices) no
#: move had more than 0.43 s (Korean "미러", read back; English 0.35 s), while 15 sentences
#: of talk with 0.5-1.35 s were read back or answered: "evening everybody, what a crowd"
#: as "eleven" (six times, in unseen rooms and voices), "I need to leave by ten thirty" as
#: "I'm leaving", "whoa, didn't see that coming" answered with the rules, "welcome, take a
#: seat anywhere" with what can be said. A player not answered says it again. None: off.
UNEXPLAINED_SPEECH_S: float | None = 0.5
#: ... or speech began at least this long (s) before its first word: at a dry table
#: espeak-ng m7's "eleven" was heard as "one" (0.96, no rival), fitted to its last syllable
#: 0.28 s after the speech began, and ruled. Of 839 moves acted on in the table talk and
#: room benches (dry, noise, babble, rooms) none had more than 0.05 s. None: off.
SPEECH_BEFORE_WORDS_S: float | None = 0.2
#: ... or its last word began at least this long (s) after the speech ended: a word fitted
#: to the room's tail. The same voice's "two card yellow one" in an unseen room of RT60
#: 0.93 s was heard as "two card yellow two", "one" swallowed by a 0.94 s "yellow" and
#: a 0.06 s "two" found 0.65 s after the speech, and ruled. In the 284 moves, the last word
#: began at least 0.22 s before the speech ended. None: off.
WORD_AFTER_SPEECH_S: float | None = 0.3
#: ... or its first word ended at least this long (s) before the speech began: a word
#: fitted to the noise before the voice. An unseen voice (espeak-ng en-us+f2) in an unseen
#: room of RT60 0.36 s with fan noise 20 dB below had "one card blue eight" heard as "two
#: blue cards eight", a 0.08 s "two" ending 0.48 s before the speech, the whole share, and
#: ruled: two cards played. In every bench dump (3,943 distinct hearings acted on) such a
#: word ended at most 0.08 s before the speech in a move heard right; the four at 0.45-0.49
#: s were all that mishearing. None: off.
WORD_BEFORE_SPEECH_S: float | None = 0.3
#: ... or a word before its last lasted at least this long (s): sound not its own fitted to
#: it. An unseen voice's "seventy two" in an unseen room of RT60 0.43 s with white noise 20
#: dB below was heard as "fifty two", "fifty" stretched over 1.02 s from the noise's onset,
#: and ruled. In the benches' dumps (2,828 hearings of two words or more acted on) no such
#: word of a move ruled right lasted 0.7 s or more (the longest: "landslide" of "plays
#: landslide turned", 0.69 s; a room's tail stretches only the last word). None: off.
INNER_WORD_S: float | None = 0.8
#: At a table's microphone with no question waiting, what was heard is dropped, not read
#: back, when a word before its last lasted at least this long (s): a word stretched over a
#: second is not that word. An unseen voice (Piper fast, pitched up) said "so what I was
#: saying was" in an unseen room of RT60 0.57 s with fan noise 20 dB below; it was heard as
#: "plays decoy", "plays" over 1.17 s, and read back: talk asked about. Of 5,177 distinct
#: hearings of two words or more in the benches' dumps (English and Korean; dry, noise,
#: babble, rooms; tuning and unseen voices) none heard right had such a word of 0.8 s or
#: more (the longest 0.78 s, a slow voice's "plays stash"); the only other one acted on
#: with such a word of 1 s or more was a move misheard ("nine of clubs" as "club nine",
#: read back). None: off.
INNER_WORD_DROP_S: float | None = 1.0
#: :data:`INNER_WORD_DROP_S` in a room that rings: there a room's tail stretches only a
#: move's last word, and talk's long vowels are fitted to a move's first. An unseen voice
#: (espeak-ng en-gb-x-gbcwmd+m2) said "hmm, let me" in an unseen room of RT60 0.83 s; it
#: was heard as "thirty three", "thirty" over 0.72 s at 0.82 (right moves' "thirty" in the
#: dumps: 0.818-0.834, no posterior bar separates them), the whole share, and ruled: 33
#: said for Cy on talk. In the room benches' dumps no move ruled right had a word before
#: its last of 0.7 s or more (longest: a slow voice's "seventy" of "seventy one", 0.68 s);
#: of the hearings acted on with one, 12 were talk (11 read back, "hmm, let me" as "thirty
#: three" over 0.72-0.87 s, "i'm leaving", "leave the game", "plays decoy"), 2 moves heard
#: wrong and 3 heard right but read back ("plays stash" said slowly, 0.71 and 0.78 s, and
#: a Korean play, 0.78 s), which are now dropped. None: off.
RINGING_INNER_DROP_S: float | None = 0.7
#: At a table's microphone with no question waiting, a hearing of one word made while
#: others talked around it (``Hearing.crowded``) is dropped, not read back or answered: one
#: word is too little to tell from the chatter. An unseen room of RT60 0.66 s with babble
#: 10 dB below had "hmm, let me" heard as "eleven" and as "one", each read back (2 of 40
#: sentences, above the 3 % of talk the table may ask about). In the babble benches' dumps
#: (11 runs, about 760 moves and 1,000 sentences) the lone words acted on in company were 2
#: moves heard right (read back), 6 heard wrong (4 read back, 2 answered as commands over
#: the table: "forty six" as "scores") and those 2 sentences. A move of one word said while
#: others talk is said again. False: off.
CROWDED_LONE_WORD_DROP = True
#: At a table's microphone with no question waiting, in a room that rings, a hearing of
#: one word that the gate kept only at the ringing room's low talk prior (its doubting twin
#: heard talk: host/speech/sphinx.py ``RINGING_DOUBT_WEIGHT``) is dropped, not read back:
#: an unseen voice's laugh heard as "eighty" was read back 5 times in 40 sentences in an
#: unseen room, above the 3 % of talk the table may ask about. False: read back.
RINGING_DOUBTED_DROP = True


def loose_fit(hearing: Hearing) -> bool:
    """Whether a hearing's words leave speech unexplained at either end, lie outside the
    speech, or stretch over sound not their own (:data:`SPEECH_AFTER_WORDS_S`,
    :data:`SPEECH_BEFORE_WORDS_S`, :data:`WORD_AFTER_SPEECH_S`, :data:`WORD_BEFORE_SPEECH_S`,
    :data:`INNER_WORD_S`)."""
    bars = (
        (hearing.speech_after_words, SPEECH_AFTER_WORDS_S),
        (hearing.speech_before_words, SPEECH_BEFORE_WORDS_S),
        (hearing.word_after_speech, WORD_AFTER_SPEECH_S),
        (hearing.word_before_speech, WORD_BEFORE_SPEECH_S),
        (hearing.longest_inner_word, INNER_WORD_S),
    )
    return any(bar is not None and seconds >= bar for seconds, bar in bars)


#: Seconds a read-back at the table waits for its answer (GAMEHOST_CONFIRM_LAPSE): long
#: enough to hear the question and answer, short enough that later talk is not taken for one.
CONFIRM_LAPSE = 8.0


def unsure(confidence: float | None, confirm_below: float) -> bool:
    """Whether a hearing's confidence is below the table's bar (none given counts as low)."""
    return confidence is None or confidence < confirm_below


def unsure_command(name: str, top: bool, share: float, *, doubting: bool, confirming: bool) -> bool:
    """Whether a heard command is too unsure to act on at a table's microphone: one that
    changes the game (:data:`DESTRUCTIVE`) unless it is the best path with
    :data:`DESTRUCTIVE_SHARE` (chatter must not end a game), any other in a room
    ``doubting`` its hearings (one that rings or is noisy) below
    :data:`TELLING_COMMAND_SHARE` unless ``confirming`` (a question waits)."""
    if name in DESTRUCTIVE:
        return not (top and share >= DESTRUCTIVE_SHARE)
    return doubting and not confirming and share < TELLING_COMMAND_SHARE


def command_read_back(name: str, *, open_mic: bool, unsure: bool, running: bool) -> bool:
    """Whether a heard command is read back before it counts: what takes back or ends
    something, when heard unsurely while a game runs, and always by an open microphone,
    where anyone's remark may sound like it ("hi everyone" was once heard as "I'm
    leaving")."""
    return name in DESTRUCTIVE and (open_mic or (running and unsure))


def needs_confirmation(
    talk: Talk[Any, Any, Any], state: Any, move: Any, lang: str, *, unsure: bool, readings: Sequence[Proposal]
) -> bool:
    """Misrecognition must not cost anyone: a costly move is read back when the hearing
    is unsure, or when something it is easily confused with, or another reading of the
    same utterance (``readings``), would not be costly."""
    if unsure and any(isinstance(r, Command) and r.name in DESTRUCTIVE for r in readings):
        return True  # "undo" heard as a number must not be ruled as one without a question
    if not talk.costly(state, move):
        return False
    if unsure:
        return True
    if any(not talk.costly(state, m) for m in talk.confusable(move, lang)):
        return True
    return any(
        isinstance(r, Moves) and any(not talk.costly(state, m) for m in r.candidates) for r in readings
    )


def doubtful(
    share: float,
    rival: float,
    *,
    noisy: bool,
    rings: bool,
    lone: bool,
    near_talk: bool,
    loud: bool,
    confused: bool,
    confused_rival: float,
    won_by_prior: bool,
    echoing: bool,
    crowded: bool,
    adapted: bool,
    goes_on: bool,
    weakest_word: float | None,
    loose: bool,
    by_name: bool,
    echoed: bool,
    rung: bool = False,
    one_word: bool = False,
) -> bool:
    """Whether a move a listener read is read back even when it would cost nothing: other
    readings hold much of the sound (``share`` below :data:`MOVE_SHARE`), another move
    players would make now is a close second (``rival``: :data:`RIVAL_SHARE`; any second at
    all in a ``noisy`` room or one that ``rings``, :data:`NOISY_RIVAL_SHARE`, for a move of
    ``one_word`` in a room that rings :data:`RINGING_LONE_RIVAL_SHARE`;
    :data:`CONFUSED_RIVAL_SHARE` for one the recogniser often hears as this move,
    ``confused_rival``), it won a toss-up of the sound only because the other reading is a
    mistake now (``won_by_prior``: a tie is a question, see host/speech/sphinx.py), only the
    lenient gate kept it (``near_talk``), it was heard in a ``loud`` room
    (:data:`LOUD_SNR_DB`) or is a ``lone`` syllable the grammar names, or, in a ``noisy``
    room or one that ``rings``, a likely move is often heard as it (``confused``:
    espeak-ng's "thirteen" in white noise 20 dB below was heard as "thirty five" with no
    rival at all, and ruled; in a room that only rings, see :data:`RINGING_CONFUSED_RULED`),
    or it was heard in a room that ``echoing`` (:data:`ECHOING_RT60`): every move there,
    unless the decoders were ``adapted`` to the room and it holds :data:`ECHOING_SHARE` of
    the sound with no likely rival at all, and no longer phrase listened for ``goes_on``
    from its words (what a tail swallowed, or the first words of a sentence: "I've got" of
    "I've got two kids at home" was heard as Blófa's "pass" of "pass yellow", the whole
    share, in a lounge of RT60 0.75 s), and no likely move may be what such a room made of
    it (``echoed``: an unseen voice's "sixty" heard as "sixty eight" in unseen rooms of
    RT60 0.95-0.98 s, the whole share, no rival, every word 0.86 or more, and ruled), or in
    one that only ``rings`` such a move of the few it makes there too (``rung``,
    :data:`RINGING_RUNG`); or
    while others talked around it (``crowded``): their words may be in it (a sentence of
    talk over the chatter of three others was heard as "ninety four" with no rival, a move
    said over it as another); or, in a room that ``rings``, a word of it was heard weakly
    (``weakest_word``, its posterior, below :data:`RINGING_WEAK_WORD`; None: no
    posteriors; also in a ``noisy`` room, :data:`NOISY_WEAK_WORD`); or its words do not
    fit the speech
    (``loose``, :func:`loose_fit`); or it is known ``by_name`` and was heard in a room that
    echoes (:data:`ECHOING_NAME_READ_BACK`), or in one that rings or is noisy with a likely
    rival at all (:data:`RINGING_NAME_RIVAL`, :data:`NOISY_NAME_RIVAL`)."""
    least_rival = NOISY_RIVAL_SHARE if noisy or rings else RIVAL_SHARE
    if rings and one_word and RINGING_LONE_RIVAL_SHARE is not None:
        least_rival = RINGING_LONE_RIVAL_SHARE
    # A mixed-up rival is also a rival (``confused_rival`` <= ``rival``): in a noisy or
    # ringing room the lower bar is already the rival's.
    rivalled = rival >= least_rival or confused_rival >= CONFUSED_RIVAL_SHARE
    weak = (rings or (noisy and NOISY_WEAK_WORD)) and word_below(weakest_word, RINGING_WEAK_WORD)
    unsure = share < MOVE_SHARE or rivalled or won_by_prior or lone or near_talk or loud or weak or loose
    # As surely as a room can be heard: decoders adapted to rooms, and no likely rival at all.
    sure_in_room = adapted and share >= ECHOING_SHARE and rival == 0
    echoes = echoing and (not sure_in_room or goes_on or echoed)
    rang = rings and rung and RINGING_RUNG
    clear = not word_below(weakest_word, RINGING_CONFUSED_WORD)
    trusted = rings and not noisy and sure_in_room and clear and RINGING_CONFUSED_RULED
    rival_names = (rings and RINGING_NAME_RIVAL) or (noisy and NOISY_NAME_RIVAL)
    named = by_name and ((echoing and ECHOING_NAME_READ_BACK) or (rival_names and rival > 0))
    return unsure or ((noisy or rings) and confused and not trusted) or echoes or rang or crowded or named


def confirm_line(lang: str, what: str, player: str = "", *, again: bool = False) -> str:
    """The read-back: "Did you say 15?", or at a shared microphone, where anyone may be
    heard, naming whose move it is: "Bob, 15?". ``again``: a command that must be said
    again to count: "Ann, leave? Say leave again to be sure."."""
    g = load(lang)
    if player and what.startswith(player) and not what[len(player) : len(player) + 1].isalnum():
        player = ""  # the move's words name them already ("Ann plays Bury?")
    if again:
        line = g.phrase("confirm_again", what=what)
        return f"{player}, {line}" if player else line
    return g.phrase("confirm_player", player=player, what=what) if player else g.phrase("confirm", what=what)


def asked_words(table: Table) -> str:
    """The read-back waiting, in words: the move ("15") or the command ("undo")."""
    asked = table.asked
    assert asked is not None
    if asked.command is not None:
        return load(table.lang).commands[asked.command][0]
    return table.spec.talk.move_text(asked.move, table.lang)
