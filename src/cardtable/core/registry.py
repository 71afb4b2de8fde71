"""Find games and bots by name.

Each game package exposes a module-level ``SPEC`` (:class:`GameSpec`); games are imported lazily
so that the core never depends on a particular game.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import Any

from cardtable.core.contract import Agent, Event, Game
from cardtable.core.message import Message

#: The module of programs as bots (``cmd:...``, docs/stdio-bots.md): it sits above the core.
STDIO_MODULE = "cardtable.stdio"

#: Game name -> module that defines ``SPEC``.
GAME_MODULES: dict[str, str] = {
    "kuhhandel": "cardtable.games.kuhhandel",
    "cunegonda": "cardtable.games.cunegonda",
}

#: A bot factory takes a seed (for the bot's own random choices) and keyword options.
BotFactory = Callable[..., Agent]

#: Built-in bots that live above the game engines (an engine imports only the standard library
#: and nothing of these): game -> bot name -> (``"module:factory"``, the extra that brings what
#: the module needs). :func:`game_spec` adds them to the game's ``bots``; the module is imported
#: when the bot is first built or asked about (:class:`OutsideBot`).
OUTSIDE_BOTS: dict[str, dict[str, tuple[str, str]]] = {
    "kuhhandel": {"learned": ("cardtable.rl.learned:LearnedBot", "rl")},
}


@dataclass(frozen=True)
class GameSpec:
    """What the platform needs to know about a game to host it."""

    name: str
    new_game: Callable[[Any, int, int], Game]
    rules_from_json: Callable[[Mapping[str, Any]], Any]
    presets: Mapping[str, Any]
    default_rules: str
    seat_range: Callable[[Any], tuple[int, int]]
    #: What an event says (``cardtable.i18n.render`` makes a message a sentence in a language;
    #: a string is already words; ``None``: no line).
    describe_event: Callable[[Event, tuple[str, ...]], Message | str | None]
    bots: Mapping[str, BotFactory] = field(default_factory=dict)
    #: A module on the engine's hot path: whether it was loaded compiled tells the game's build
    #: (``[tool.cardtable.compile]`` in pyproject.toml; ``core.compiled.engine_build``).
    engine: ModuleType | None = None
    #: Plain-words lines for a seat's observation (``observation, rules JSON, names``): what
    #: ``cardtable replay --at`` prints. ``None``: the observation is printed as JSON.
    describe_view: (
        Callable[[Any, Mapping[str, Any], tuple[str, ...]], Sequence[Message | str]] | None
    ) = None

    def rules_name(self, rules: Any) -> str:
        """The preset name of ``rules``, or its own ``name``, or ``"custom"``."""
        for name, preset in self.presets.items():
            if preset == rules:
                return name
        return str(getattr(rules, "name", "custom"))

    def rules_label(self, rules: Any) -> str:
        """The one name people see for ``rules``, on every page and in the terminal.

        A preset is called by its preset name (three rounds of Cunegonda are ``short``). Any
        other rule set is named after the nearest preset (the one it was made from, else the one
        with the fewest differences) and what differs, in words: ``classic (open auction)``.
        """
        for name, preset in self.presets.items():
            if preset == rules:
                return name
        to_json = getattr(rules, "to_json", None)
        if to_json is None or not self.presets:
            return str(getattr(rules, "name", "custom"))
        mine: dict[str, Any] = to_json()
        own_name = mine.get("name")
        best: tuple[tuple[bool, int, bool], str, list[str]] | None = None
        for name, preset in self.presets.items():
            theirs: dict[str, Any] = preset.to_json()
            diff = [k for k in mine if k != "name" and mine[k] != theirs.get(k)]
            rank = (own_name != name, len(diff), name != self.default_rules)
            if best is None or rank < best[0]:
                best = (rank, name, diff)
        assert best is not None
        _, name, diff = best
        words = [_difference_words(key, mine[key]) for key in diff]
        if not words:
            return name
        if len(words) > 3:
            words = [*words[:3], f"{len(words) - 3} more changes"]
        return f"{name} ({', '.join(words)})"

    def resolve_rules(self, rules: str | Mapping[str, Any] | None) -> Any:
        """A preset name, a rule set as JSON, or ``None`` for the default preset."""
        if rules is None:
            rules = self.default_rules
        if isinstance(rules, str):
            try:
                return self.presets[rules]
            except KeyError:
                known = ", ".join(sorted(self.presets))
                raise ValueError(
                    f"unknown rule set {rules!r} for {self.name} (known: {known})"
                ) from None
        return self.rules_from_json(rules)


def _difference_words(key: str, value: Any) -> str:
    """One changed rule in words: ``auction_style=open`` -> ``open auction``, ``rounds=5`` ->
    ``5 rounds``, ``rats=0`` -> ``0 rats``, ``duel=False`` -> ``no duel``."""
    words = key.replace("_", " ")
    if isinstance(value, bool):
        return words if value else f"no {words}"
    if isinstance(value, str):
        if key.endswith("_style"):
            return f"{value.replace('_', ' ')} {key[: -len('_style')].replace('_', ' ')}"
        return f"{words}: {value.replace('_', ' ')}"
    if isinstance(value, int | float) and "_" not in key:
        return f"{value} {words[:-1] if value == 1 and words.endswith('s') else words}"
    if value is None:
        return f"no {words}"
    if isinstance(value, int | float):
        return f"{words} {value}"
    return f"own {words}"


def game_names() -> list[str]:
    return sorted(GAME_MODULES)


class OutsideBot:
    """The factory of a bot of :data:`OUTSIDE_BOTS`: its module is imported on first use, and a
    module that cannot be imported (numpy missing for ``learned``) gives a :class:`ValueError`
    that says what to install."""

    def __init__(self, name: str, target: str, extra: str) -> None:
        self.name = name
        self.target = target
        self.extra = extra

    def factory(self) -> Any:
        module_name, _, attr = self.target.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            missing = exc.name or module_name
            raise ValueError(
                f"the {self.name} bot needs {missing}: pip install {missing} "
                f"(or cardtable[{self.extra}])"
            ) from None
        return getattr(module, attr)

    def __call__(self, seed: int = 0, **options: Any) -> Agent:
        bot: Agent = self.factory()(seed=seed, **options)
        return bot

    def refusal(self, rules: Any, seats: int) -> str | None:
        """Why the bot cannot play a table of ``rules`` and ``seats`` (``None``: it can): the
        factory's own ``refusal(rules, seats)`` if it has one."""
        try:
            check = getattr(self.factory(), "refusal", None)
        except ValueError as exc:
            return str(exc)
        return None if check is None else check(rules, seats)


def bot_refusal(spec: GameSpec, name: str, rules: Any, seats: int) -> str | None:
    """Why the built-in bot ``name`` cannot play a table of ``rules`` and ``seats``, in words, or
    ``None`` when it can. The engines' own bots play every table; a factory with a
    ``refusal(rules, seats)`` (such as ``learned``'s, whose weights fit some tables only) says
    where it cannot."""
    factory = spec.bots.get(name)
    if factory is None:
        return f"no built-in bot {name!r} for {spec.name} (known: {', '.join(spec.bots)})"
    check = getattr(factory, "refusal", None)
    return None if check is None else check(rules, seats)


_SPECS: dict[str, GameSpec] = {}


def game_spec(name: str) -> GameSpec:
    """The game's ``SPEC``, its ``bots`` with those of :data:`OUTSIDE_BOTS` added."""
    spec = _SPECS.get(name)
    if spec is not None:
        return spec
    try:
        module = GAME_MODULES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r} (known: {', '.join(game_names())})") from None
    spec = importlib.import_module(module).SPEC
    assert isinstance(spec, GameSpec)
    outside = OUTSIDE_BOTS.get(name, {})
    if outside:
        bots = {bot: OutsideBot(bot, *where) for bot, where in outside.items()}
        spec = replace(spec, bots={**spec.bots, **bots})
    _SPECS[name] = spec
    return spec


def _option_value(text: str) -> Any:
    """``128`` -> 128, ``0.5`` -> 0.5, ``true``/``false``/``none`` -> True/False/None, else text."""
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def split_bot_ref(ref: str) -> tuple[str, dict[str, Any]]:
    """``expert:iterations=128,time_cap=none`` -> (``expert``, options).

    Options come after the last ``:``, as ``key=value`` pairs separated by commas; they work for
    registered names and files alike (``mybot.py:MyBot:depth=3,width=2``). A second ``:`` between
    options (``mybot.py:MyBot:depth=3:width=2``) is a :class:`ValueError` naming this syntax.
    """
    base, sep, tail = ref.rpartition(":")
    if not sep or "=" not in tail:
        return ref, {}
    if any("=" in part for part in base.split(":")):  # x.py:C:a=1:b=2 (issue 35)
        raise ValueError(
            f"bad bot reference {ref!r}: options come after one ':' and are separated by commas, "
            "as in path.py:Class:key=value,key=value or expert:iterations=128,time_cap=none"
        )
    options: dict[str, Any] = {}
    for item in tail.split(","):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not key.isidentifier():
            raise ValueError(f"bad bot option {item!r} in {ref!r} (write key=value,key=value)")
        options[key] = _option_value(value.strip())
    return base, options


def split_bot_list(text: str) -> list[str]:
    """``expert:iterations=128,time_cap=none,heuristic`` -> the two bot references.

    Commas separate bots and also the options of one bot: a piece with ``=`` but no ``:`` is an
    option of the bot before it. A program's options in brackets (``cmd[cwd=a,deadline=2]:./b``)
    stay with it.
    """
    refs: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        if refs and refs[-1].startswith("cmd[") and "]" not in refs[-1]:
            refs[-1] += "," + piece
        elif "=" in piece and ":" not in piece and not piece.startswith("cmd["):
            if not refs:
                raise ValueError(f"bot option {piece!r} before any bot in {text!r}")
            refs[-1] += "," + piece
        else:
            refs.append(piece)
    return refs


def load_bot(game: str, ref: str, seed: int = 0, **options: Any) -> Agent:
    """Build a bot from a registered name (``random``, ``heuristic``, ``expert``) or a file.

    ``cmd:./mybot --arg`` (or ``cmd[cwd=dir]:node bot.js``) is a program in any language
    speaking the stdio protocol (docs/stdio-bots.md, :mod:`cardtable.stdio`).
    A file reference is ``path/to/bot.py:ClassName`` (or ``path/to/bot.py`` with a class or factory
    called ``Bot``). The class is called with ``seed=`` if it accepts it. Either form may end in
    options for the bot's constructor, ``expert:iterations=128,time_cap=none`` (see
    :func:`split_bot_ref`); keyword ``options`` given here win over those in ``ref``.
    """
    if ref.startswith(("cmd:", "cmd[")):  # a program speaking the stdio protocol
        # imported by name, as OUTSIDE_BOTS are: the core stays below the adapters (and the
        # compiled build's type check does not follow into the protocol's schema code)
        stdio = importlib.import_module(STDIO_MODULE)
        agent: Agent = stdio.program_agent(game, ref, seed, **options)
        return agent
    full_ref = ref
    ref, ref_options = split_bot_ref(ref)
    options = {**ref_options, **options}
    spec = game_spec(game)
    if ":" not in ref and not ref.endswith(".py"):
        try:
            factory = spec.bots[ref]
        except KeyError:
            known = ", ".join(sorted(spec.bots))
            raise ValueError(
                f"unknown bot {ref!r} for {game} (built in: {known}; or path.py:Class)"
            ) from None
        try:
            return factory(seed=seed, **options)
        except TypeError as exc:
            if not options:
                raise
            raise ValueError(f"bot {full_ref!r}: bad options ({exc})") from None
    path_text, _, attr = ref.rpartition(":") if ":" in ref else (ref, ":", "Bot")
    path = Path(path_text)
    if not path.is_file():
        raise ValueError(f"bot file {path} not found")
    mod_name = f"cardtable_userbot_{abs(hash(path.resolve()))}"
    module = sys.modules.get(mod_name)
    if module is None:
        loader_spec = importlib.util.spec_from_file_location(mod_name, path)
        if loader_spec is None or loader_spec.loader is None:
            raise ValueError(f"cannot load {path}")
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[mod_name] = module
        try:
            loader_spec.loader.exec_module(module)
        except Exception as exc:
            del sys.modules[mod_name]
            raise ValueError(f"bot file {path} failed to import: {exc!r}") from exc
    target = getattr(module, attr or "Bot", None)
    if target is None:
        raise ValueError(f"{path} has no {attr or 'Bot'}")
    try:
        bot = target(seed=seed, **options)
    except TypeError:
        try:
            bot = target(**options)
        except TypeError as exc:
            if not options:
                raise
            raise ValueError(f"bot {full_ref!r}: bad options ({exc})") from None
    if not callable(getattr(bot, "act", None)):
        raise ValueError(f"{ref} is not an agent: it has no act(observation, request) method")
    return bot  # type: ignore[no-any-return]
