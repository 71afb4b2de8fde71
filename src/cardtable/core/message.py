"""A sentence in no language: a catalog key and its arguments.

The engines say what happened as :class:`Message` values (``describe.py`` of each game), never as
English text; ``cardtable.i18n`` turns a message into a sentence in a person's language from the
catalogs (``src/cardtable/i18n/catalogs/*.json``, ICU MessageFormat). An argument is a number
(formatted for the language), a string (a name, a code for ``select``, cards in symbols: shown as
given), a nested :class:`Message`, a :class:`Joined` list or a :class:`Signed` number.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

#: What a message's argument may be.
Arg = Union[int, float, str, "Message", "Joined", "Signed"]


@dataclass(frozen=True)
class Message:
    """The catalog key ``key`` with ``args``; ``default`` is the text when no catalog has the key
    (an animal of a custom rule set is called by its own name); ``level`` indents the line (a
    detail of the line before: two spaces a level in the terminal)."""

    key: str
    args: dict[str, Arg] = field(default_factory=dict)
    default: str | None = None
    level: int = 0

    def to_json(self) -> dict[str, object]:
        """The message as JSON for a page to word (``static/i18n.js``'s ``say``): ``key``,
        ``args`` (a nested message as its own JSON, a :class:`Joined` as its words joined in no
        language: only numbers and strings), ``default`` when it has one."""
        out: dict[str, object] = {
            "key": self.key,
            "args": {k: _json(v) for k, v in self.args.items()},
        }
        if self.default is not None:
            out["default"] = self.default
        return out


@dataclass(frozen=True)
class Joined:
    """Several arguments in a row: ``Joined((a, b), " + ")`` reads ``a + b``."""

    items: tuple[Arg, ...]
    sep: str = ", "


@dataclass(frozen=True)
class Signed:
    """A number with its sign always shown: ``+10``, ``+0``, ``-26``."""

    value: int


def msg(key: str, level: int = 0, **args: Arg) -> Message:
    """``msg("log.kuhhandel.bid", who="Ann", amount=30)``."""
    return Message(key, args, None, level)


def _json(value: Arg) -> object:
    if isinstance(value, Message):
        return value.to_json()
    if isinstance(value, Signed):
        return value.value
    if isinstance(value, Joined):
        return value.sep.join(str(_json(item)) for item in value.items)
    return value
