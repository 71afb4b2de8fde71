"""``cardtable new-bot GAME``: write a starter bot that runs, to grow into your own.

``--lang c|node|python|rust`` writes a program in that language that speaks the stdio protocol
(:mod:`cardtable.stdio`, docs/stdio-bots.md) instead of a Python class.

The starter answers every request of the game legally with a simple rule, names the request's
fields where it reads them, and points to the documentation. ``tests/cli/test_new_bot.py``
generates each one and plays a game with it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "write a starter bot for a game (a file that plays at once; change it from there)"

KUHHANDEL = '''\
"""{name}: a starter Kuhhandel bot written by `cardtable new-bot kuhhandel`.

Every request kind gets a simple legal answer; change them one by one. Try it:

    cardtable play kuhhandel --bots {path}:{name},heuristic,random
    cardtable arena kuhhandel --bots {path}:{name},heuristic --seats 4 --games 200
    cardtable replay game.json --seat 0 --at 5 --ask {path}:{name}    # why did it do that?

Every request and observation field: docs/writing-a-bot.md.
"""

import random

from cardtable.core import load_bot
from cardtable.games.kuhhandel import actions as A
from cardtable.games.kuhhandel import cheapest_payment


class {name}:
    def __init__(self, seed=0):
        self.rng = random.Random(seed)  # every random choice from here: same seed, same game
        self.values = []
        self.helper = None

    def start(self, seat, info):
        """Before the first request: the rule set (info.rules) and the seats."""
        self.seat = seat
        self.values = [species["value"] for species in info.rules["species"]]
        self.helper = load_bot(info.game, "random", seed=self.rng.randrange(2**31))

    def act(self, observation, request):
        info = request.info or {{}}
        kind = request.kind
        if kind == "turn":  # choices: AUCTION (while the deck lasts) and every Challenge
            if A.AUCTION in request.choices:
                return A.AUCTION
            return max(request.choices, key=lambda c: getattr(c, "species", -1))
        if kind == "bid":  # info: card, high, high_bidder, min, max, round, money
            card = info["card"]
            value = self.values[card] if card < len(self.values) else 0
            limit = min(value // 4, info["money"])
            if info["max"] is not None:
                limit = min(limit, info["max"])
            return A.Bid(info["min"]) if info["min"] <= limit else A.PASS
        if kind == "sell_or_buy":  # info: card, high (the price), high_bidder
            return A.SELL
        if kind == "pay" and "amount" in info:  # info: amount, to, for, wallet (your notes)
            notes = sorted(set(info["wallet"]))
            counts = [info["wallet"].count(v) for v in notes]
            payment = cheapest_payment(counts, notes, info["amount"])
            if payment is not None:
                return A.Pay(payment)
        if kind == "offer":  # info: opponent, species, cards, again, wallet
            return A.Offer(tuple(info["wallet"][-2:]))  # the two largest notes
        if kind == "respond":  # info: challenger, species, cards, offer_notes, again, wallet
            return A.ACCEPT
        # knock, claim, preempt, rat, divide and the pedigree payment: the random bot answers
        return self.helper.act(observation, request)
'''

CUNEGONDA = '''\
"""{name}: a starter Cunegonda bot written by `cardtable new-bot cunegonda`.

Try it:

    cardtable play cunegonda --bots {path}:{name},heuristic
    cardtable arena cunegonda --bots {path}:{name},heuristic --seats 4 --games 200
    cardtable replay game.json --seat 0 --at 5 --ask {path}:{name}    # why did it do that?

Cards are ints suit * 13 + rank (clubs 0, diamonds 1, hearts 2, spades 3; rank 0 is the 2).
Every request and observation field: docs/writing-a-bot.md and docs/cunegonda.md.
"""

from cardtable.games.cunegonda.cards import HEARTS, QUEEN_OF_SPADES


def danger(card):
    """How much we want to get rid of a card: the queen of spades, then hearts, then high cards."""
    return (card == QUEEN_OF_SPADES, card // 13 == HEARTS, card % 13)


class {name}:
    def __init__(self, seed=0):
        self.seed = seed

    def act(self, observation, request):
        if request.kind == "pass":  # info: count (3), to (the seat receiving them)
            worst = sorted(observation.hand, key=danger, reverse=True)
            return tuple(sorted(worst[: request.info["count"]]))
        # "play": choices are every legal card; play the least dangerous one
        return min(request.choices, key=danger)
'''

STARTERS = {"kuhhandel": KUHHANDEL, "cunegonda": CUNEGONDA}


#: ``--lang`` -> the stdio starter kit (cardtable/stdio/kits/, also examples/stdio/): its file
#: name, and how to run it once written (``{out}`` is the file written).
KITS = {
    "python": ("python/bot.py", "python3 {out}"),
    "node": ("node/bot.js", "node {out}"),
    "c": ("c/bot.c", "./{stem}"),
    "rust": ("rust/bot.rs", "./{stem}"),
}

#: How to build the compiled kits once written (``{out}`` the file, ``{stem}`` the program).
BUILDS = {"c": "cc -O2 -o {stem} {out}", "rust": "rustc -O -o {stem} {out}"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", help="kuhhandel or cunegonda")
    p.add_argument(
        "--lang",
        choices=sorted(KITS),
        default=None,
        help="write a program in this language speaking the stdio protocol instead of a Python "
        "class (docs/stdio-bots.md); it plays both games",
    )
    p.add_argument(
        "--out",
        default=None,
        metavar="FILE",
        help="file to write (mybot.py; with --lang: bot.py, bot.js, bot.c or bot.rs)",
    )
    p.add_argument("--name", default="MyBot", help="the bot's class name (MyBot)")
    p.add_argument("--force", action="store_true", help="overwrite FILE if it exists")


def write_kit(args: argparse.Namespace) -> int:
    """``--lang``: copy the stdio starter kit of the language and say how to build and run it."""
    from importlib.resources import files

    if args.game not in STARTERS:
        known = ", ".join(sorted(STARTERS))
        raise ValueError(f"no starter for {args.game!r} (there are: {known})")
    source, run_line = KITS[args.lang]
    out = Path(args.out or Path(source).name)
    if out.exists() and not args.force:
        raise ValueError(f"{out} exists; choose another --out or add --force")
    out.write_text(files("cardtable.stdio").joinpath("kits", source).read_text())
    command = run_line.format(out=out, stem=out.with_suffix(""))
    print(f"wrote {out} (it plays every request of kuhhandel and cunegonda): try it with")
    if args.lang in BUILDS:
        print("  " + BUILDS[args.lang].format(out=out, stem=out.with_suffix("")))
    others = "heuristic,random" if args.game == "kuhhandel" else "heuristic,heuristic,heuristic"
    print(f'  cardtable play {args.game} --bots "cmd:{command},{others}"')
    print("the protocol: docs/stdio-bots.md")
    return 0


def run(args: argparse.Namespace) -> int:
    if args.lang is not None:
        return write_kit(args)
    args.out = args.out or "mybot.py"
    template = STARTERS.get(args.game)
    if template is None:
        known = ", ".join(sorted(STARTERS))
        raise ValueError(f"no starter for {args.game!r} (there are: {known})")
    if not args.name.isidentifier() or not args.name[:1].isupper():
        raise ValueError(f"--name must be a Python class name such as MyBot, not {args.name!r}")
    out = Path(args.out)
    if out.exists() and not args.force:
        raise ValueError(f"{out} exists; choose another --out or add --force")
    out.write_text(template.format(name=args.name, path=out.name))
    print(f"wrote {out}: try it with")
    print(f"  cardtable play {args.game} --bots {out}:{args.name},heuristic")
    return 0
