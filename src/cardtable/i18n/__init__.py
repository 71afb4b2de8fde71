"""The languages of the platform: the catalogs and how sentences are chosen and formatted.

One catalog per language, ``catalogs/{lang}.json``: a flat JSON object of dotted keys
(``log.kuhhandel.bid``, ``animal.cow``, ``ruleset.kuhhandel.classic``) to ICU MessageFormat
patterns (``{who} bids {amount}.``, ``{count, plural, one {# note} other {# notes}}``). English
is the source; a key missing in another language falls back to English, key by key. The terminal
(``cardtable play --lang de``) and the browser (``GET /i18n/{lang}.json``, read by the web pages
with ``Intl``) use the same catalogs; docs/translating.md says how to add a language.

Plural categories and numbers come from Babel (CLDR data); the small ICU formatter in
:mod:`cardtable.i18n.icu` is ours because no maintained pure-Python ICU MessageFormat formatter
handles plural, select and nesting well.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from babel import Locale, UnknownLocaleError, negotiate_locale
from babel.numbers import format_decimal

from cardtable.core.contract import ActionError
from cardtable.core.message import Joined, Message, Signed
from cardtable.i18n import icu

__all__ = [
    "DEFAULT",
    "SUPPORTED",
    "catalog",
    "event_line",
    "from_environment",
    "missing",
    "negotiate",
    "problems",
    "refusal",
    "refusal_args",
    "render",
    "translate",
    "view_lines",
]

#: The languages with a catalog, English (the source) first.
SUPPORTED: tuple[str, ...] = ("en", "de", "fr", "nl", "it")
DEFAULT = "en"

CATALOGS = Path(__file__).resolve().parent / "catalogs"

#: At most this much of an ``Accept-Language`` header is read (it comes from strangers).
MAX_HEADER = 512


def _lang(lang: str | None) -> str:
    return lang if lang in SUPPORTED else DEFAULT


@cache
def catalog(lang: str) -> Mapping[str, str]:
    """The catalog of ``lang`` as written (its own keys only; no fallback)."""
    if lang not in SUPPORTED:
        raise ValueError(f"no catalog for language {lang!r} (languages: {', '.join(SUPPORTED)})")
    data = json.loads((CATALOGS / f"{lang}.json").read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in data.items()
    ):
        raise ValueError(f"catalogs/{lang}.json is not a flat object of strings")
    return data


@cache
def _compiled(lang: str, key: str) -> tuple[icu.Node, ...] | None:
    """The pattern of ``key`` in ``lang``, else in English; ``None`` if no catalog has it."""
    for source in (lang, DEFAULT):
        text = catalog(source).get(key)
        if text is not None:
            try:
                return icu.parse(text)
            except icu.PatternError:
                continue  # a broken translation: English instead (the catalog test names it)
    return None


@cache
def _rules(lang: str) -> icu.Rules:
    locale = Locale.parse(lang)

    def number(n: float) -> str:
        return str(format_decimal(n, locale=locale))

    def show(value: Any) -> str:
        return _show(lang, value)

    return icu.Rules(locale.plural_form, locale.ordinal_form, number, show)


def _show(lang: str, value: Any) -> str:
    if isinstance(value, Message):
        return render(lang, value, indent=False)
    if isinstance(value, Joined):
        return value.sep.join(_show(lang, item) for item in value.items)
    if isinstance(value, Signed):
        text = _rules(lang).number(abs(value.value))
        return ("-" if value.value < 0 else "+") + text
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return _rules(lang).number(value)
    return str(value)


def translate(lang: str, key: str, /, **args: Any) -> str:
    """The sentence ``key`` in ``lang`` (English for a key ``lang`` lacks, the key itself for a
    key no catalog has), with ``args`` put in."""
    lang = _lang(lang)
    nodes = _compiled(lang, key)
    if nodes is None:
        return key
    return icu.format_nodes(nodes, args, _rules(lang))


def render(lang: str, message: Message | str | None, indent: bool = True) -> str:
    """A message in ``lang`` (a string is already words; ``None`` is no line: ``""``); two
    spaces a ``level`` in front unless ``indent=False``."""
    if message is None:
        return ""
    if isinstance(message, str):
        return message
    lang = _lang(lang)
    nodes = _compiled(lang, message.key)
    if nodes is None:
        text = message.default if message.default is not None else message.key
    else:
        text = icu.format_nodes(nodes, message.args, _rules(lang))
    return "  " * message.level + text if indent else text


def refusal_args(details: Mapping[str, Any]) -> dict[str, Any]:
    """An engine's refusal details ready for its catalog entry: ``animal`` (a species' English
    name) becomes the catalog's ``animal.{name}`` (the name itself for a species no catalog
    knows); the browser's ``errors.js`` does the same."""
    args = dict(details)
    name = args.get("animal")
    if isinstance(name, str):
        slug = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
        args["animal"] = Message(f"animal.{slug}", {"count": 1}, default=name)
    return args


def refusal(lang: str, error: ActionError) -> str:
    """Why an engine refused an action, in ``lang``: the catalog's ``refusal.{rule}`` with the
    error's details, or its English ``reason`` when it names no rule the catalogs know."""
    if not error.rule:
        return error.reason
    message = Message(f"refusal.{error.rule}", refusal_args(error.details), error.reason)
    return render(lang, message, indent=False)


def negotiate(accept_language: str | None) -> str:
    """The supported language a browser's ``Accept-Language`` header prefers (English if none):
    ``"de-CH,de;q=0.9,en;q=0.8"`` -> ``"de"``. A malformed header is read as far as it makes
    sense; only its first :data:`MAX_HEADER` characters are read."""
    if not accept_language:
        return DEFAULT
    wanted: list[tuple[float, int, str]] = []
    for i, part in enumerate(accept_language[:MAX_HEADER].split(",")):
        tag, _, params = part.strip().partition(";")
        tag = tag.strip()
        q = 1.0
        params = params.strip()
        if params.startswith("q="):
            try:
                q = float(params[2:])
            except ValueError:
                continue
        if tag and tag != "*" and q > 0 and tag.replace("-", "").replace("_", "").isalnum():
            wanted.append((-q, i, tag.replace("_", "-")))
    preferred = [tag for _q, _i, tag in sorted(wanted)]
    found = negotiate_locale(preferred, SUPPORTED, sep="-")
    return found if found in SUPPORTED else DEFAULT


def from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The terminal's language from ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES`` or ``LANG`` (the
    first one set, as gettext reads them): ``de_DE.UTF-8`` -> ``"de"``; English otherwise."""
    env = os.environ if environ is None else environ
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name)
        if not value:
            continue
        tags = [t.split(".")[0].split("@")[0] for t in value.split(":")]
        if name != "LANGUAGE" and tags[0] in ("C", "POSIX"):
            return DEFAULT
        try:
            found = negotiate_locale(tags, SUPPORTED, sep="_")
        except UnknownLocaleError:  # pragma: no cover - negotiate_locale does not parse
            found = None
        if found in SUPPORTED:
            return str(found)
    return DEFAULT


def missing(lang: str) -> list[str]:
    """The English keys ``lang``'s catalog lacks (shown in English until translated)."""
    own = catalog(lang)
    return [key for key in catalog(DEFAULT) if key not in own]


def event_line(lang: str, spec: Any, event: Any, names: tuple[str, ...] = ()) -> str:
    """What ``event`` says in ``lang``, through the game's ``describe_event`` (``spec`` is its
    :class:`~cardtable.core.registry.GameSpec`): ``""`` for an event not worth a line."""
    return render(lang, spec.describe_event(event, names))


def view_lines(
    lang: str, spec: Any, observation: Any, rules: Mapping[str, Any], names: tuple[str, ...] = ()
) -> list[str]:
    """A seat's view in ``lang`` through the game's ``describe_view`` (none: ``[]``)."""
    if spec.describe_view is None:
        return []
    return [render(lang, m) for m in spec.describe_view(observation, rules, names)]


def problems(lang: str) -> list[str]:
    """Entries of ``lang`` that do not parse, or name other arguments than the English entry (a
    language may say ``{place}.`` where English needs ``{place, selectordinal, ...}``, but it
    must use the same arguments), or that English does not have."""
    out: list[str] = []
    english = catalog(DEFAULT)
    for key, text in catalog(lang).items():
        try:
            mine = icu.arguments(icu.parse(text))
        except icu.PatternError as exc:
            out.append(f"{key}: {exc}")
            continue
        if key not in english:
            out.append(f"{key}: not in the English catalog")
            continue
        theirs = icu.arguments(icu.parse(english[key]))
        if set(mine) != set(theirs):
            out.append(f"{key}: arguments {sorted(mine)}, English has {sorted(theirs)}")
    return out
