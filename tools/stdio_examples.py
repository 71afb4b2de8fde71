"""The example exchanges of docs/stdio-bots.md, from real games (issue 39).

The Python starter kit plays one game of each rule set below against random bots with a ``log``
of every line; the first exchange of each request kind is shown (the observation shortened to
``{…}`` except once per game, where it is shown whole). ``--write`` puts the result between the
markers in docs/stdio-bots.md and the protocol's schemas in docs/stdio-schema.json; ``--check``
(tests/stdio/test_docs.py) fails when either differs.

    python tools/stdio_examples.py --write
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "stdio-bots.md"
SCHEMA = ROOT / "docs" / "stdio-schema.json"  # the protocol's schemas, published
BEGIN, END = "<!-- stdio examples: begin -->", "<!-- stdio examples: end -->"
GAMES = [  # game, rules, seats, seed
    ("kuhhandel", "classic", 3, 7),
    ("kuhhandel", "master", 4, 3),
    ("kuhhandel", "master-duel", 2, 1),
    ("cunegonda", "standard", 4, 1),
]


ELIDED = "__elided__"


def _compact(message: Any) -> str:
    """A message as the adapter writes it, an elided part shown as ``{…}``."""
    text = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
    return text.replace(f'"{ELIDED}"', "{…}")


def _game_lines(game: str, rules: str, seats: int, seed: int) -> list[tuple[str, str]]:
    from cardtable.core import MatchLog, game_spec, load_bot, run_match
    from cardtable.stdio import close_kept_programs

    kit = ROOT / "src" / "cardtable" / "stdio" / "kits" / "python" / "bot.py"
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "lines.log"
        spec = game_spec(game)
        match = spec.new_game(spec.resolve_rules(rules), seats, seed)
        agents = [load_bot(game, "random", seed=s) for s in range(seats)]
        agents[0] = load_bot(game, f"cmd[log={log}]:" + shlex.join([sys.executable, str(kit)]))
        faults = MatchLog()
        run_match(match, agents, log=faults, fallback=lambda s: load_bot(game, "random"))
        close_kept_programs()
        assert not faults.faults, faults.faults
        return [(line[0], line[2:]) for line in log.read_text().splitlines()]


def examples_markdown() -> str:
    out: list[str] = []
    for game, rules, seats, seed in GAMES:
        lines = _game_lines(game, rules, seats, seed)
        out.append(f"### {game}, {rules} rules, {seats} seats (the program in seat 0)\n")
        shown: set[str] = set()
        block: list[str] = []
        events = 0
        whole_observation = rules in ("classic", "standard")
        answers = iter([text for way, text in lines if way == "<"])
        for way, text in lines:
            if way != ">":  # the program's answers are taken in order below
                continue
            message = json.loads(text)
            kind = message["type"]
            answer = next(answers) if kind in ("hello", "request") else ""
            if kind == "hello":
                message["rules"] = {"name": message["rules"].get("name", rules), "…": "…"}
                block += [f"> {_compact(message)}", f"< {answer}"]
            elif kind == "event" and events < 3:
                events += 1
                block.append(f"> {text}")
            elif kind == "request" and message["request"]["kind"] not in shown:
                shown.add(message["request"]["kind"])
                if whole_observation:
                    whole_observation = False
                    block.append(f"> {text}")
                else:
                    message["observation"] = ELIDED
                    block.append(f"> {_compact(message)}")
                block.append(f"< {answer}")
            elif kind == "game_end":
                block.append(f"> {text}")
        block.append("> " + json.dumps({"type": "bye"}) if game == "cunegonda" else "")
        out.append("```\n" + "\n".join(line for line in block if line) + "\n```\n")
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    from cardtable.stdio import schema_document

    schema = json.dumps(schema_document(), indent=1, ensure_ascii=False) + "\n"
    text = examples_markdown()
    if not args.write and not args.check:
        print(text)
        return 0
    doc = DOC.read_text()
    head, _, rest = doc.partition(BEGIN)
    _, _, tail = rest.partition(END)
    new = f"{head}{BEGIN}\n{text}{END}{tail}"
    if args.check:
        if new != doc or not SCHEMA.exists() or SCHEMA.read_text() != schema:
            print(
                "docs/stdio-bots.md examples or docs/stdio-schema.json differ: "
                "run python tools/stdio_examples.py --write"
            )
            return 1
        return 0
    DOC.write_text(new)
    SCHEMA.write_text(schema)
    return 0


if __name__ == "__main__":
    sys.exit(main())
