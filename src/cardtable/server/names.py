"""Player names: what a name may hold and when two names are the same name.

- Names are normalised to Unicode NFKC (``ｍｙ-ｂｏｔ`` is ``my-bot``).
- Control characters, format characters (bidi overrides and isolates, zero-width spaces and
  joiners, the byte-order mark), private-use, unassigned and surrogate code points, line and
  paragraph separators and runs of more than three combining marks are refused: they hide what a
  name shows.
- Two names are the same name when their case folds are equal (:func:`fold`, full Unicode case
  folding, so ``STRASSE`` is ``straße``) or when their confusable skeletons are equal
  (:func:`skeleton`, the skeleton of Unicode TR39 §4: ``pаypal`` with a Cyrillic ``а`` is
  ``paypal``, ``Ill`` is ``lll``, ``rn`` is ``m``). The store keeps both in indexed columns
  (``players.name_fold``, ``players.name_skeleton``, unique), so this works the same on SQLite,
  whose ``lower()`` folds ASCII only, and on PostgreSQL.

The confusables data is Unicode's ``confusables.txt`` as the maintained ``confusable-homoglyphs``
package ships it (a symmetric table: each character with the characters it can be confused
with). TR39 maps every character of a class to the class's prototype; in the symmetric table
the prototype is the member confusable with all the others, so each class is mapped to its
member with the most entries (ties: the shortest, then the smallest).
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from functools import cache
from importlib import resources

#: Names starting with this (after folding and skeleton) belong to the house bots.
HOUSE_PREFIX = "house-"
_REFUSED_CATEGORIES = {"Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp"}
_MAX_MARKS = 3


class NameRefused(ValueError):
    """A name holds what no name may hold; ``reason`` says what, ``code`` and ``args`` say it
    without words (refusals.CODES)."""

    def __init__(self, reason: str, code: str, **args: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code
        self.args_ = args


def normalise(name: str) -> str:
    """``name`` in NFKC; raises :class:`NameRefused` for hidden or control characters."""
    text = unicodedata.normalize("NFKC", name)
    marks = 0
    for ch in text:
        category = unicodedata.category(ch)
        if category in _REFUSED_CATEGORIES or (ch.isspace() and ch != " "):
            raise NameRefused(
                f"a name may not hold {unicodedata.name(ch, f'U+{ord(ch):04X}')} "
                f"(U+{ord(ch):04X}): control, invisible and direction characters are refused",
                "name_invisible",
                char=f"U+{ord(ch):04X}",
            )
        if category in ("Mn", "Me"):
            marks += 1
            if marks > _MAX_MARKS:
                raise NameRefused(
                    "a name may not stack more than three combining marks", "name_marks"
                )
        else:
            marks = 0
    return text


def fold(name: str) -> str:
    """The case-insensitive form of a name (NFKC of its full Unicode case folding)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def skeleton(name: str) -> str:
    """The confusable skeleton of a name, case-insensitive: names that look alike have equal
    skeletons (TR39 skeleton of the case folding of the TR39 skeleton, so ``Ill`` = ``lll``
    and ``MY-BOT`` = ``my-bot``)."""
    first = _skeleton(unicodedata.normalize("NFKC", name))
    return _skeleton(first.casefold())


def reserved(name: str) -> bool:
    """True for the house bots' names and ``guest`` (a guest's default name), and names that
    look like them."""
    return house_name(name) or skeleton(name) == _reserved_skeletons()[1]


def reserved_reason(name: str) -> str | None:
    """Why ``name`` is reserved (:func:`reserved`), or ``None`` if it is not."""
    if house_name(name):
        return "names starting with 'house-' (or looking like it) are reserved for house bots"
    if skeleton(name) == _reserved_skeletons()[1]:
        return "the name 'guest' (or one looking like it) is reserved: guests play under it"
    return None


def house_name(name: str) -> bool:
    """True for the house bots' names (``house-...``) and names that look like them."""
    return skeleton(name).startswith(_reserved_skeletons()[0])


@cache
def _reserved_skeletons() -> tuple[str, str]:
    return skeleton(HOUSE_PREFIX), skeleton("guest")


def _skeleton(text: str) -> str:
    prototypes = _prototypes()
    mapped = "".join(prototypes.get(ch, ch) for ch in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


_MARKS = str.maketrans("", "", "\u200e\u200f")


#: The prototypes derived from the confusables data, shipped: deriving them (parsing the 0.9 MB
#: table, grouping its classes) cost every server process 46 ms of CPU at start, reading this
#: file 1 ms (measured). Used while the installed data is the data it was derived from (its
#: SHA-256 says), else derived again; tests/server/test_names.py checks it is current.
PROTOTYPES_FILE = "confusable_prototypes.json"


@cache
def _prototypes() -> dict[str, str]:
    """Each confusable character -> the prototype of its class."""
    # the package's data file, read here rather than through its module, which keeps the whole
    # table (19 MB) alive; only the prototypes (a few thousand characters) are kept
    data = resources.files("confusable_homoglyphs").joinpath("confusables.json").read_bytes()
    shipped = json.loads(resources.files("cardtable.server").joinpath(PROTOTYPES_FILE).read_bytes())
    if shipped["source_sha256"] == hashlib.sha256(data).hexdigest():
        prototypes: dict[str, str] = shipped["prototypes"]
        return prototypes
    return derive_prototypes(data)


def prototypes_file(data: bytes) -> str:
    """The text of :data:`PROTOTYPES_FILE` for the confusables data ``data`` (its bytes)."""
    shipped = {
        "source": "confusable_homoglyphs/confusables.json",
        "source_sha256": hashlib.sha256(data).hexdigest(),
        "prototypes": derive_prototypes(data),
    }
    return json.dumps(shipped, sort_keys=True, indent=0) + "\n"


def derive_prototypes(data: bytes) -> dict[str, str]:
    """Each confusable character -> the prototype of its class, from the confusables data."""
    confusables_data: dict[str, list[dict[str, str]]] = json.loads(data)
    del data

    entries: dict[str, int] = {}
    parent: dict[str, str] = {}

    def find(node: str) -> str:
        root = node
        while parent.setdefault(root, root) != root:
            root = parent[root]
        while parent[node] != root:
            parent[node], node = root, parent[node]
        return root

    for key, alikes in confusables_data.items():
        source = key.translate(_MARKS)
        entries[source] = entries.get(source, 0) + len(alikes)
        for alike in alikes:
            other = alike["c"].translate(_MARKS)
            if other and source:
                parent[find(other)] = find(source)
    best: dict[str, str] = {}
    for node in parent:
        root = find(node)
        chosen = best.get(root)
        if chosen is None or _rank(node, entries) < _rank(chosen, entries):
            best[root] = node
    out = {}
    for node in parent:
        prototype = best[find(node)]
        if len(node) == 1 and prototype != node:
            out[node] = prototype
    return out


def _rank(node: str, entries: dict[str, int]) -> tuple[int, int, str]:
    return (-entries.get(node, 0), len(node), node)
