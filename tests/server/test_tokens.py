"""Bot tokens: random, URL-safe, and usable as ``cardtable bot --token TOKEN``."""

from __future__ import annotations

import string

from cardtable.cli import build_parser
from cardtable.server.store.db import hash_token, new_token, verify_token

URL_SAFE = set(string.ascii_letters + string.digits + "-_")


def test_a_bot_token_never_starts_with_a_dash_so_a_command_line_takes_it() -> None:
    # One plain token_urlsafe in 64 starts with "-", which argparse takes for an option
    # ("--token: expected one argument"): a CI run met one. 3,000 draws meet ~47 of those.
    tokens = [new_token() for _ in range(3000)]
    assert len(set(tokens)) == len(tokens)
    assert all(len(t) == 43 and set(t) <= URL_SAFE for t in tokens)
    assert not [t for t in tokens if t.startswith("-")]
    dashed = [t for t in tokens if "-" in t]
    assert dashed  # a dash elsewhere is fine: the command line still reads the whole token
    args = build_parser().parse_args(["bot", "--name", "cow", "--token", dashed[0]])
    assert args.token == dashed[0]
    assert verify_token(str(args.token), hash_token(dashed[0]))  # what the server compares
