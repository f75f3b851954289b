"""!nversion: the trick-taking game with the lane and its inversions, refereed from what
the table says (``docs/rules/inversion.txt``)."""

from games.base import GameSpec, SetupFlag, register
from games.inversion import rules
from games.inversion.talk import TALK
from grammars import game_languages

SPEC = register(
    GameSpec(
        name="inversion",
        title="!nversion",
        aliases=("nversion", "inversion cards", "lane"),
        min_players=rules.MIN_PLAYERS,
        max_players=rules.MAX_PLAYERS,
        options=rules.Options,
        events=(
            rules.SuitsChosen,
            rules.LaneLaid,
            rules.FirstChosen,
            rules.BidMade,
            rules.AuctionWon,
            rules.TrickStarted,
            rules.CardPlayed,
            rules.Inversion,
            rules.Revoke,
            rules.TrickWon,
            rules.CardsAccounted,
        ),
        rules=rules.Rules(),
        talk=TALK,
        encode=rules.encode,
        decode=rules.decode,
        channels=frozenset({"text", "sms", "table"}),
        languages=game_languages(__file__),
        summary="Real cards, a lane of 10 and inversions: follow suit or make 11 with the follow card.",
        setup_flags=(
            SetupFlag("--suits", "the suits, e.g. heart,spade,club"),
            SetupFlag("--lane", "the lane, e.g. 9H,2C,..."),
            SetupFlag("--first", "who starts"),
        ),
    )
)
