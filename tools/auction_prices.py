"""Where a single bot's share comes from, read from Kuhhandel game records (issue #42).

    python tools/auction_prices.py RECORDS_DIR [--single NAME]

RECORDS_DIR holds the records of ``cardtable arena ... --records DIR``; ``--single`` (default
``Newcomer``) names the one seat measured against copies of another bot (a part of its name in
the record). Seats are counted from the single bot: 1 sits at its left (the next to play, the
first asked in its auctions), 3 at its right. It prints per game, averaged over the records:

- each relative seat's wins, score, quartets and unspent money at the end;
- each auction by who auctioned it and who took the card (sold to the high bidder, or bought
  back by the auctioneer), with the price paid per point of the card's species value;
- per species value, the mean price the single bot paid an auctioneer of the other kind, and
  the mean price the other bots paid one another;
- the auctions an auctioneer of the other kind settled, by who bid highest (the single bot;
  another, the single bot bidding too; another, the single bot silent): the mean species value,
  the price per point, and the others' highest bid (the single bot wins where the others stop:
  in issue #42 the experts stopped at 156 for cards worth 580 on average, 0.29 per point).
"""

from __future__ import annotations

import argparse
import glob
from collections import Counter, defaultdict

from cardtable.core.record import Record, replay


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records")
    parser.add_argument("--single", default="Newcomer")
    args = parser.parse_args()
    games = 0
    seat = Counter[str]()
    cards = Counter[str]()
    paid = Counter[str]()
    value = Counter[str]()
    by_species: dict[tuple[int, str], list[int]] = defaultdict(list)
    #: by who bid highest: auctions, species value, price, the others' highest bid
    contests: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for path in sorted(glob.glob(f"{args.records}/*.json")):
        record = Record.load(path)
        single = next(i for i, name in enumerate(record.names) if args.single in name)
        result = record.result
        assert result is not None
        game = replay(record)
        species = game.rules.species
        games += 1
        for s in range(record.seats):
            rel = (s - single) % record.seats
            seat[f"wins {rel}"] += result.places[s] == 0
            seat[f"score {rel}"] += int(result.scores[s])
            seat[f"quartets {rel}"] += len(result.details["quartets"][s])
            seat[f"money {rel}"] += result.details["money"][s]
        auction: list[int] = []
        bids: list[tuple[int, int]] = []
        for event in game.events():
            kind, data = event.kind, event.data
            if kind == "auction":
                auction = [data["seat"], data["card"], 0, -1]
                bids = []
            elif kind == "bid" and auction:
                bids.append((data["seat"], data["amount"]))
            elif kind == "closed" and auction:
                auction[2] = data["high"]
                hb = data["high_bidder"]
                auction[3] = -1 if hb is None else hb
            elif kind == "decision" and auction:
                a, card, high, hb = auction
                auction = []
                if hb < 0 or card >= len(species):
                    continue
                if a != single:
                    if hb == single:
                        who = "the single bot bid highest"
                    elif any(s == single for s, _ in bids):
                        who = "another bid highest, the single bot too"
                    else:
                        who = "another bid highest, the single bot silent"
                    contest = contests[who]
                    contest[0] += 1
                    contest[1] += species[card].value
                    contest[2] += high
                    contest[3] += max((b for s, b in bids if s != single), default=0)
                buyer = a if data["buy"] else hb
                how = "buys back" if data["buy"] else "sells"
                rel_a, rel_b = (a - single) % record.seats, (buyer - single) % record.seats
                key = f"auctioneer {rel_a} {how}, taker {rel_b}"
                cards[key] += 1
                paid[key] += high
                value[key] += species[card].value
                if (a == single) != (buyer == single):  # the single bot and another trade a card
                    by_species[
                        (
                            species[card].value,
                            "single pays" if buyer == single else "single is paid",
                        )
                    ].append(high)
                elif a != single and buyer != single and a != buyer:
                    by_species[(species[card].value, "others pay each other")].append(high)
    print(f"{games} games; seats counted from the single bot ({args.single}): 1 at its left")
    for key in sorted(seat):
        print(f"  {key:<12} {seat[key] / games:9.2f} per game")
    print("auctions (per game: cards, price per point of species value)")
    for key in sorted(cards):
        print(f"  {key:<40} {cards[key] / games:5.2f}  {paid[key] / max(1, value[key]):.2f}")
    print("price per species value (cards per game, mean price)")
    for (worth, who), prices in sorted(by_species.items()):
        print(
            f"  {worth:>5} {who:<22} {len(prices) / games:5.2f}  {sum(prices) / len(prices):6.0f}"
        )

    print("auctions of the others (per auction: species value, price per point, their top bid)")
    for who, (n, worth, price, top) in sorted(contests.items()):
        print(
            f"  {who:<44} {n / games:5.2f} a game  value {worth / n:5.0f}"
            f"  {price / max(1, worth):.2f}  top {top / n:5.0f}"
        )


if __name__ == "__main__":
    main()
