"""A small ICU MessageFormat formatter: placeholders, ``plural`` (with ``#`` and ``=N``),
``selectordinal`` and ``select``, on top of Babel's CLDR plural rules.

Why our own: no maintained pure-Python ICU MessageFormat formatter handles plural, selectordinal,
select and nesting well (PyICU needs the ICU C++ library; the pure-Python packages on PyPI are
unmaintained or handle only placeholders). The grammar kept here is the part of ICU the catalogs
use; the plural categories always come from Babel (``Locale.plural_form`` and
``Locale.ordinal_form``, CLDR data), never from rules written here.

Apostrophes follow ICU's default (``DOUBLE_OPTIONAL``): ``''`` is one apostrophe, ``'{`` ... ``'``
quotes braces (and ``#`` in a plural), any other apostrophe is itself (French ``l'enchère``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Union

Node = Union[str, "Arg", "Pound", "Choice"]


class PatternError(ValueError):
    """A catalog entry that is not ICU MessageFormat (what is wrong and where)."""


@dataclass(frozen=True)
class Arg:
    """``{name}`` or ``{name, number}``."""

    name: str


@dataclass(frozen=True)
class Pound:
    """``#`` inside a plural: the number."""


@dataclass(frozen=True)
class Choice:
    """``{name, plural|selectordinal|select, key {...} ...}``."""

    name: str
    kind: str
    cases: dict[str, tuple[Node, ...]]


KINDS = ("plural", "selectordinal", "select")
SIMPLE_TYPES = ("number",)


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, why: str) -> PatternError:
        return PatternError(f"{why} at character {self.pos} of {self.text!r}")

    def message(self, in_plural: bool, depth: int) -> tuple[Node, ...]:
        if depth > 8:
            raise self.fail("nested too deep")
        out: list[Node] = []
        buf: list[str] = []
        t = self.text
        while self.pos < len(t):
            c = t[self.pos]
            if c == "'":
                nxt = t[self.pos + 1] if self.pos + 1 < len(t) else ""
                if nxt == "'":
                    buf.append("'")
                    self.pos += 2
                elif nxt and (nxt in "{}" or (in_plural and nxt == "#")):
                    end = self.pos + 1
                    while True:
                        end = t.find("'", end)
                        if end == -1:
                            raise self.fail("unclosed quote")
                        if t[end + 1 : end + 2] == "'":
                            end += 2
                            continue
                        break
                    buf.append(t[self.pos + 1 : end].replace("''", "'"))
                    self.pos = end + 1
                else:
                    buf.append("'")
                    self.pos += 1
            elif c == "{":
                if buf:
                    out.append("".join(buf))
                    buf = []
                out.append(self.argument(depth))
            elif c == "}":
                break
            elif c == "#" and in_plural:
                if buf:
                    out.append("".join(buf))
                    buf = []
                out.append(Pound())
                self.pos += 1
            else:
                buf.append(c)
                self.pos += 1
        if buf:
            out.append("".join(buf))
        return tuple(out)

    def word(self) -> str:
        self.space()
        start = self.pos
        t = self.text
        while self.pos < len(t) and (t[self.pos].isalnum() or t[self.pos] in "_=-."):
            self.pos += 1
        if start == self.pos:
            raise self.fail("a name is missing")
        return t[start : self.pos]

    def space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def expect(self, char: str) -> None:
        self.space()
        if self.pos >= len(self.text) or self.text[self.pos] != char:
            raise self.fail(f"{char!r} expected")
        self.pos += 1

    def argument(self, depth: int) -> Node:
        self.pos += 1  # "{"
        name = self.word()
        self.space()
        if self.pos < len(self.text) and self.text[self.pos] == "}":
            self.pos += 1
            return Arg(name)
        self.expect(",")
        kind = self.word()
        if kind in SIMPLE_TYPES:
            self.expect("}")
            return Arg(name)
        if kind not in KINDS:
            raise self.fail(f"unknown argument type {kind!r}")
        self.expect(",")
        cases: dict[str, tuple[Node, ...]] = {}
        while True:
            self.space()
            if self.pos < len(self.text) and self.text[self.pos] == "}":
                self.pos += 1
                break
            key = self.word()
            if key in cases:
                raise self.fail(f"case {key!r} twice")
            self.expect("{")
            cases[key] = self.message(kind != "select", depth + 1)
            self.expect("}")
        if "other" not in cases:
            raise self.fail(f"{kind} of {name!r} has no 'other' case")
        return Choice(name, kind, cases)


def parse(text: str) -> tuple[Node, ...]:
    """The pattern's tree; :class:`PatternError` if ``text`` is not a pattern."""
    p = _Parser(text)
    nodes = p.message(False, 0)
    if p.pos != len(text):
        raise p.fail("unmatched '}'")
    return nodes


def arguments(nodes: tuple[Node, ...]) -> dict[str, str]:
    """Every argument a pattern uses and how: ``{"count": "plural", "who": "arg"}``."""
    out: dict[str, str] = {}
    for node in nodes:
        if isinstance(node, Arg):
            out.setdefault(node.name, "arg")
        elif isinstance(node, Choice):
            out[node.name] = node.kind
            for case in node.cases.values():
                for name, how in arguments(case).items():
                    out.setdefault(name, how)
    return out


@dataclass(frozen=True)
class Rules:
    """What formatting needs of a language: its plural and ordinal categories, its numbers and how
    an argument that is not a number is shown."""

    plural: Callable[[float], str]
    ordinal: Callable[[float], str]
    number: Callable[[float], str]
    show: Callable[[Any], str]


def format_nodes(
    nodes: tuple[Node, ...], args: Mapping[str, Any], rules: Rules, pound: float | None = None
) -> str:
    out: list[str] = []
    for node in nodes:
        if isinstance(node, str):
            out.append(node)
        elif isinstance(node, Pound):
            out.append(rules.number(pound) if pound is not None else "#")
        elif isinstance(node, Arg):
            out.append(rules.show(args[node.name]) if node.name in args else "{" + node.name + "}")
        else:
            value = args.get(node.name)
            if node.kind == "select":
                case = node.cases.get(str(value), node.cases["other"])
                out.append(format_nodes(case, args, rules, pound))
                continue
            n = value if isinstance(value, int | float) and not isinstance(value, bool) else 0
            exact = node.cases.get(f"={n:g}")
            if exact is None:
                category = rules.plural(abs(n)) if node.kind == "plural" else rules.ordinal(abs(n))
                exact = node.cases.get(category, node.cases["other"])
            out.append(format_nodes(exact, args, rules, n))
    return "".join(out)
