"""Regenerate the schema part of ``docs/protocol.md`` from the schemas themselves.

``python -m cardtable.protocol.document docs/protocol.md`` rewrites the error-code table and
everything from ``## Messages`` to the end of the file; the prose above it is left alone. The
tests check that the file holds the current schemas, so a schema change without this step fails.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from cardtable.protocol.messages import CLIENT_SCHEMAS, ERROR_CODES, SERVER_SCHEMAS

MESSAGES_HEADING = "## Messages"
_CODES_TABLE = re.compile(r"\| code \| meaning \|\n\|---\|---\|\n(?:\|.*\|\n)+")


def error_table() -> str:
    rows = "".join(f"| `{code}` | {text} |\n" for code, text in ERROR_CODES.items())
    return "| code | meaning |\n|---|---|\n" + rows


def messages_section() -> str:
    """The ``## Messages`` section: every schema, client messages first."""
    parts = [
        MESSAGES_HEADING,
        "",
        "Each schema below is generated from `cardtable.protocol.messages` (the same document as "
        "`GET /api/protocol/schema`).",
        "",
    ]
    for title, schemas in (
        ("Client → server", CLIENT_SCHEMAS),
        ("Server → client", SERVER_SCHEMAS),
    ):
        parts += [f"### {title}", ""]
        for name, schema in schemas.items():
            parts += [
                f"#### `{name}`",
                "",
                str(schema.get("description", "")),
                "",
                "```json",
                json.dumps(schema, indent=2, ensure_ascii=False),
                "```",
                "",
            ]
    return "\n".join(parts)


def rewrite(text: str) -> str:
    """``text`` (the current docs/protocol.md) with the generated parts replaced."""
    head, found, _ = text.partition(MESSAGES_HEADING)
    if not found:
        raise ValueError(f"no {MESSAGES_HEADING!r} heading to replace from")
    head, n = _CODES_TABLE.subn(lambda _m: error_table(), head, count=1)
    if n != 1:
        raise ValueError("no error-code table (| code | meaning |) to replace")
    return head + messages_section()


def main(argv: list[str]) -> int:
    path = Path(argv[0] if argv else "docs/protocol.md")
    path.write_text(rewrite(path.read_text()))
    print(f"rewrote the schemas in {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
