"""The terminal `human` seat in the player's language (issue 38): `cardtable play ... --bots
human,...` with `LANG=de_DE.UTF-8` (or `--lang de`) prints its table, its requests and the log in
German. A real process; the person types on its stdin."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from patience import patience

SRC = Path(__file__).resolve().parents[2] / "src"

#: English words of the terminal's sentences that a German screen must not show.
ENGLISH = ("Your ", "Turn ", " notes", " the ", "Auction:", "Cow trade", " bids ", "Not understood")


def play(args: list[str], typed: str, **env: str) -> str:
    environ = {
        k: v
        for k, v in os.environ.items()
        if k not in ("LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES")
    }
    environ.update(PYTHONPATH=str(SRC), CARDTABLE_ENGINE="plain", **env)
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from cardtable.cli import main; sys.exit(main())",
            *args,
        ],
        input=typed,
        capture_output=True,
        text=True,
        timeout=patience(60),
        env=environ,
    )
    return run.stdout + run.stderr


def test_a_german_human_seat_reads_and_is_asked_in_german() -> None:
    # "passen" passes a bid (the German word), "0" picks the first choice; at the end of the
    # typed lines the input closes and the game stops
    out = play(
        ["play", "kuhhandel", "--bots", "human,random,random", "--seed", "3"],
        "passen\n0\n" * 40,
        LANG="de_DE.UTF-8",
    )
    assert "Du spielst auf Platz 0" in out, out[:2000]
    assert re.search(r"Zug \d+: noch \d+ Karten im Stapel\.", out), out[:2000]
    assert "Deine Geldkarten: 2 × 0, 4 × 10, 50 (Wert 90)." in out
    assert "Du bist dran." in out
    assert "  [0] Eine Karte aufdecken und versteigern" in out
    assert re.search(r"Gebot für (Huhn|Gans|Katze|Hund|Schaf|Ziege|Esel|Schwein|Kuh|Pferd)", out)
    assert re.search(r"deckt auf: (Huhn|Gans|Katze|Hund|Schaf|Ziege|Esel|Schwein|Kuh|Pferd)", out)
    assert "Auktion: " in out
    for word in ENGLISH:
        assert word not in out, (word, out[:3000])


def test_lang_option_overrides_the_environment() -> None:
    out = play(
        [
            "play",
            "cunegonda",
            "--rules",
            "short",
            "--lang",
            "de",
            "--bots",
            "human,random",
            "--seats",
            "4",
        ],
        "10C 9C 8C\n0\n" * 5,
        LANG="en_US.UTF-8",
    )
    assert "Runde 1 von 3." in out, out[:2000]
    assert re.search(r"Deine Hand: (Kreuz|Karo|Pik|Herz) [0-9JQKA]", out), out[:2000]
    assert re.search(r"Wähle 3 Karten, die du an \S+ weitergibst\.", out), out[:2000]
    for word in ENGLISH:
        assert word not in out, (word, out[:3000])


def test_a_refused_bid_is_explained_in_german() -> None:
    # "5" bids 5, under every auction's minimum: the engine's refusal (its rule and numbers) is
    # said from the German catalog, then the person is asked again and passes
    out = play(
        ["play", "kuhhandel", "--bots", "human,random,random", "--seed", "3", "--lang", "de"],
        "5\npassen\n0\n" * 30,
    )
    found = re.search(
        r"Nicht erlaubt: Ein Gebot muss mindestens (\d+) betragen \(§4\.2\), nicht 5\.", out
    )
    assert found, out[:4000]
    assert int(found.group(1)) > 5
    assert "a bid must be" not in out and "Nicht erlaubt: a " not in out
