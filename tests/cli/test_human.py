"""The terminal `human` seat prints the table in words, not raw arrays (issue #20): herds by
animal with counts and quartets, your notes by value, the auction and the cow trade in
sentences, the decision as a short numbered menu. A scripted person reads the screen and types
answers (stdin replaced) through whole games of `cardtable play`."""

from __future__ import annotations

import re

import pytest

from cardtable.cli import main

SUITS = {"clubs": "C", "diamonds": "D", "hearts": "H", "spades": "S"}


def notes_shown(screen: str) -> list[int]:
    """The notes of the newest 'Your notes: 2 × 0, 10, 50 (worth 60).' line."""
    line = [x for x in screen.splitlines() if x.startswith("Your notes: ")][-1]
    body = line.removeprefix("Your notes: ").split(" (worth")[0]
    notes: list[int] = []
    if body.startswith("no notes"):
        return notes
    for part in body.split(", "):
        count, _, value = part.rpartition(" × ")
        notes += [int(value)] * (int(count) if count else 1)
    return notes


def payment(notes: list[int], amount: int) -> list[int]:
    """Notes covering `amount` with none that could be left out, as a person would count."""
    chosen: list[int] = []
    for v in sorted(notes, reverse=True):
        if sum(chosen) >= amount:
            break
        chosen.append(v)
    for v in sorted(chosen):
        if sum(chosen) - v >= amount:
            chosen.remove(v)
    return sorted(chosen)


class Person:
    """Reads what `cardtable play` printed since the last answer and types the next one."""

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys
        self.screen: list[str] = []
        self.answers = 0

    def __call__(self, prompt: str = "") -> str:
        out = self.capsys.readouterr().out
        self.screen.append(out)
        self.answers += 1
        assert self.answers < 3000, "the game does not end"
        ask = [x for x in out.splitlines() if x and not x.startswith("  ")][-1]
        if ask.startswith("Bid for"):
            return "pass"
        if "sell to them, or buy" in ask:
            return "sell"
        pay = re.match(r"Pay .*? (\d+)( notes)?[ :]", ask)
        if pay:
            notes = notes_shown(out)
            if pay.group(2):  # a pedigree: that many notes, the smallest
                return " ".join(str(v) for v in sorted(notes)[: int(pay.group(1))])
            return " ".join(str(v) for v in payment(notes, int(pay.group(1))))
        if ask.startswith("Offer notes"):
            return str(min(notes_shown(out)))
        if "accept, or counter" in ask:
            return "accept"
        if "keep it or give it" in ask:
            return "keep"
        if ask.startswith("Choose 3 cards"):
            hand = [x for x in out.splitlines() if x.startswith("Your hand: ")][-1]
            first = hand.removeprefix("Your hand: ").rstrip(".").split(" · ")[0].split()
            suit, ranks = SUITS[first[0]], first[1:]
            if len(ranks) < 3:  # not enough in the first suit: take from the next too
                second = hand.removeprefix("Your hand: ").rstrip(".").split(" · ")[1].split()
                ranks = [r + suit for r in ranks] + [r + SUITS[second[0]] for r in second[1:]]
                return " ".join(ranks[:3])
            return " ".join(r + suit for r in ranks[:3])
        return "0"

    def text(self) -> str:
        return "".join(self.screen)


def play_as_person(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *argv: str
) -> tuple[int, str]:
    person = Person(capsys)
    monkeypatch.setattr("builtins.input", person)
    code = main(["play", *argv])
    rest = capsys.readouterr()
    return code, person.text() + rest.out + rest.err


def table_lines(text: str) -> list[str]:
    """The lines the human seat printed about the table (not the engine's event lines)."""
    starts = ("Turn ", "  You:", "Your notes:", "Auction:", "  Bids in order:", "Cow trade:")
    return [x for x in text.splitlines() if x.startswith(starts)]


@pytest.mark.parametrize("rules,seed", [("classic", 4), ("master", 2)])
def test_human_seat_reads_kuhhandel_in_words(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], rules: str, seed: int
) -> None:
    code, text = play_as_person(
        monkeypatch,
        capsys,
        "kuhhandel",
        "--rules",
        rules,
        "--bots",
        "human,random,random",
        "--seed",
        str(seed),
    )
    assert code == 0, text[-2000:]
    lines = table_lines(text)
    assert lines, text[:2000]
    # no raw arrays or engine fields in what the seat prints about the table
    for line in lines:
        assert "[" not in line and "herds" not in line and "note_counts" not in line, line
    assert re.search(r"Your notes: .*\d+ × \d+.*\(worth \d+\)\.", text)
    assert re.search(r"  You: .*\w+ \d of \d", text)  # an animal with its count
    assert "(quartet)" in text  # some seat completes a quartet in a whole game
    assert re.search(r"Auction: .* auctions? the \w+\. (No bid yet|Highest bid: \d+ from)", text)
    assert re.search(r"  Bids in order: \S+ (\d+|passed)", text)
    assert re.search(r"Cow trade: .* challenges? .* for \d \w+", text)
    # the decision as a short menu, in words
    assert "  [0] Draw a card and auction it" in text
    assert re.search(r"  \[\d\] Cow trade: challenge \S+ for the \w+", text)
    assert "Not understood" not in text and "Not allowed" not in text
    if rules == "master":
        assert re.search(r"Countdown for the \w+ pedigree from 10", text)


def test_human_seat_reads_cunegonda_in_words(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, text = play_as_person(
        monkeypatch,
        capsys,
        "cunegonda",
        "--rules",
        "short",
        "--bots",
        "human,random,random,random",
        "--seed",
        "1",
    )
    assert code == 0, text[-2000:]
    assert re.search(r"Your hand: (clubs|diamonds|spades|hearts) [0-9JQKA]", text)
    assert "Choose 3 cards to pass to " in text
    assert re.search(r"This trick: \S+ \w+", text)
    assert re.search(r"  \[0\] [0-9JQKA]+[CDHS]   \[1\] [0-9JQKA]+[CDHS]", text)  # one line
    assert "Passed to you by " in text
    assert re.search(r"Scores this round: you [+-]\d+ \(total -?\d+\)", text)
    assert "Not understood" not in text and "Not allowed" not in text


def test_a_typed_word_picks_the_choice(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from cardtable.cli.human import TerminalPlayer
    from cardtable.games import kuhhandel as K
    from cardtable.games.kuhhandel import actions as A

    game = K.new_game(K.CLASSIC, 3, 1)
    person = TerminalPlayer("kuhhandel")
    person.game = game
    request = game.pending()[0]
    typed = iter(["nonsense", "auction"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(typed))
    assert person.act(game.observe(request.seat), request) == A.AUCTION
    out = capsys.readouterr().out
    assert "Your turn." in out and "  [0] Draw a card and auction it" in out
    assert "Not understood" in out
    # unstarted seats still name the animals (the rules come from the game)
    assert "Your notes: 2 × 0, 4 × 10, 50 (worth 90)." in out
