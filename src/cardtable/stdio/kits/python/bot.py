#!/usr/bin/env python3
"""A cardtable bot in plain Python (standard library only) speaking the stdio protocol.

It answers every request of Kuhhandel and Cunegonda with the simplest legal action: the first
of the request's choices when it lists them, else a fixed rule per request kind. Protocol,
request kinds and fields: docs/stdio-bots.md. Try it:

    cardtable play kuhhandel --bots "cmd:python3 bot.py,heuristic,random"
    cardtable arena kuhhandel --bots "cmd:python3 bot.py,heuristic" --games 10
"""

import json
import sys
from typing import Any


def payment(wallet: list[int], amount: int) -> list[int]:
    """Notes covering ``amount`` from which no note could be left out: largest first."""
    paid: list[int] = []
    total = 0
    for note in sorted(wallet, reverse=True):
        if total >= amount:
            break
        paid.append(note)
        total += note
    return paid


def choose(observation: dict[str, Any], request: dict[str, Any]) -> Any:
    if request["choices"] is not None:  # every legal action is listed: take the first
        return request["choices"][0]
    kind, info = request["kind"], request["info"]
    if kind == "bid":  # Kuhhandel auction: bid the minimum while it is cheap, else pass
        cheap = info["min"] <= info["money"] // 4
        if cheap and (info["max"] is None or info["min"] <= info["max"]):
            return {"kind": "bid", "amount": info["min"]}
        return {"kind": "pass"}
    if kind == "pay":  # info amount (or count: that many notes, for a pedigree), wallet
        if "count" in info:
            return {"kind": "pay", "notes": sorted(info["wallet"])[: info["count"]]}
        return {"kind": "pay", "notes": payment(info["wallet"], info["amount"])}
    if kind == "offer":  # a cow trade's offer: any notes of the wallet, none is allowed
        return {"kind": "offer", "notes": []}
    if kind == "respond":  # accept the offer (or counter with notes)
        return {"kind": "accept"}
    if kind == "pass":  # Cunegonda: pass info count cards of the hand
        return {"pass": observation["hand"][: info["count"]]}
    raise ValueError(f"unknown request kind {kind}")


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":  # a game starts: game, rules, seat, seats
            reply = {"type": "ready", "name": "starter-python", "keep": "match"}
        elif kind == "request":
            action = choose(message["observation"], message["request"])
            reply = {"type": "action", "id": message["id"], "action": action}
        elif kind == "bye":
            return
        else:  # event, game_end: nothing to answer
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
