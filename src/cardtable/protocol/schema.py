"""Check values against the protocol's JSON schemas (Draft 2020-12), compiled or interpreted.

Two validators read the same schemas (the schemas stay the single source):

- ``fast`` (the default): `fastjsonschema` compiles each schema to Python code the first time it is
  used (6-14 times cheaper a frame than the interpreted validator, ``cardtable bench --frames``);
- ``jsonschema``: the reference implementation interprets the schema, kept for the A/B
  measurement (``cardtable bench server --validator``) and as the one that words refusals.

The environment variable ``CARDTABLE_VALIDATOR`` (``fast`` or ``jsonschema``) or
:func:`use_validator` selects the one that decides. A value the fast validator refuses is worded
by `jsonschema`, so a client reads the same reason whichever validator decides (a refusal costs
one interpreted check more; refusals are rare and throttled by the flood limit).

One validator is built per schema, the first time the schema is used, and kept. Its errors are put
in the protocol's own words: :class:`SchemaError` names the offending part by a path (``$.a.b``,
``$.items[2]``) and says what is wrong (``missing required field 'data'``, ``unknown field 'x'``,
``expected integer, got str``), one error per value: the one nearest the top of the value, the
first found among those. One deliberate strictness beyond the standard: an ``integer`` is an int
(``2.0`` is refused, as Python's JSON decoder keeps it a float and the server must not take it for
a count).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

import fastjsonschema
from fastjsonschema.draft04 import JSON_TYPE_TO_PYTHON_TYPE
from fastjsonschema.draft2019 import CodeGeneratorDraft2019
from fastjsonschema.ref_resolver import RefResolver

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError


@cache
def protocol_validator() -> Any:
    """The reference's validator class: Draft 2020-12 with integers that are ints.

    `jsonschema` is imported here, the first time a value is refused (or the reference is
    selected), not with this module: with its dependencies (referencing, attrs, rpds) it cost
    every server process 28 ms of CPU at start, and the schemas' own check 17 ms more (both
    measured), for a validator a server whose clients send valid frames never runs."""
    from jsonschema import Draft202012Validator
    from jsonschema.validators import extend

    types = Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _checker, value: isinstance(value, int) and not isinstance(value, bool)
    )
    return extend(Draft202012Validator, type_checker=types)


#: The validators that can decide, the first the default.
VALIDATORS = ("fast", "jsonschema")

# id(schema) -> (schema, its validator); the schema is kept so that its id stays its own
_VALIDATORS: dict[int, tuple[Mapping[str, Any], Any]] = {}
_COMPILED: dict[int, tuple[Mapping[str, Any], Callable[[Any], Any]]] = {}
_selected = {"name": os.environ.get("CARDTABLE_VALIDATOR", VALIDATORS[0]) or VALIDATORS[0]}
if _selected["name"] not in VALIDATORS:
    raise ValueError(f"CARDTABLE_VALIDATOR must be one of {', '.join(VALIDATORS)}")


def use_validator(name: str) -> None:
    """Let ``name`` (one of :data:`VALIDATORS`) decide from now on."""
    if name not in VALIDATORS:
        raise ValueError(f"unknown validator {name!r} (known: {', '.join(VALIDATORS)})")
    _selected["name"] = name


def selected_validator() -> str:
    """The name of the validator that decides (``fast`` or ``jsonschema``)."""
    return _selected["name"]


class _StrictIntegers(CodeGeneratorDraft2019):
    """fastjsonschema's Draft 2019 code with the protocol's integers: an ``integer`` is an int.

    fastjsonschema follows the drafts since 06 in taking ``2.0`` for an integer and has no type
    checker to redefine (what :data:`ProtocolValidator` does for `jsonschema`); its drafts are
    subclasses of one another that override ``generate_<keyword>``, and so is this one.
    """

    def generate_type(self) -> None:
        types = self._definition["type"]
        types = types if isinstance(types, list) else [types]
        names = ", ".join(JSON_TYPE_TO_PYTHON_TYPE[t] for t in types)
        bools = "boolean" not in types and ("integer" in types or "number" in types)
        extra = f" or isinstance({self._variable}, bool)" if bools else ""
        with self.l(f"if not isinstance({{variable}}, ({names},)){extra}:"):
            self.exc("{name} must be {}", " or ".join(types), rule="type")


def compiled_for(schema: Mapping[str, Any]) -> Callable[[Any], Any]:
    """The compiled check of ``schema`` (fastjsonschema), built the first time."""
    hit = _COMPILED.get(id(schema))
    if hit is None or hit[0] is not schema:
        # the schema itself is not checked by the reference here: the protocol's schemas are
        # checked once by the tests (tests/server/test_validators.py), not at every start
        definition = dict(schema)
        resolver = RefResolver.from_schema(definition, handlers={}, store={})
        # the same steps as fastjsonschema.compile, with the code generator above; defaults are
        # never written into a client's frame (use_default=False)
        generator = _StrictIntegers(definition, resolver=resolver, use_default=False)
        state = generator.global_state
        exec(generator.func_code, state)
        hit = (schema, state[resolver.get_scope_name()])
        _COMPILED[id(schema)] = hit
    return hit[1]


class SchemaError(ValueError):
    """``value`` does not match the schema; ``path`` points at the offending part (``$.a.b``)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def validator_for(schema: Mapping[str, Any]) -> Any:
    """The validator of ``schema``, built (and the schema checked) the first time."""
    hit = _VALIDATORS.get(id(schema))
    if hit is None or hit[0] is not schema:
        reference = protocol_validator()
        reference.check_schema(schema)
        hit = (schema, reference(schema))
        _VALIDATORS[id(schema)] = hit
    return hit[1]


def validate(value: Any, schema: Mapping[str, Any], path: str = "$") -> None:
    """Raise :class:`SchemaError` unless ``value`` matches ``schema``."""
    refusal: fastjsonschema.JsonSchemaValueException | None = None
    if _selected["name"] == "fast":
        try:
            compiled_for(schema)(value)
            return
        except fastjsonschema.JsonSchemaValueException as exc:
            refusal = exc
    error = _first(validator_for(schema).iter_errors(value))
    if error is not None:
        raise SchemaError(_path(path, error.absolute_path), _reason(error))
    if refusal is not None:  # the two disagree (tests/server/test_validators.py: they don't)
        where = str(refusal.name or "data").removeprefix("data")
        raise SchemaError(path + where, str(refusal.message).removeprefix(f"{refusal.name} "))


def _first(errors: Iterable[ValidationError]) -> ValidationError | None:
    """The error nearest the top of the value; of those, the first found."""
    best: ValidationError | None = None
    for error in errors:
        if best is None or len(error.absolute_path) < len(best.absolute_path):
            best = error
            if not best.absolute_path:
                break
    return best


def _path(root: str, parts: Iterable[Any]) -> str:
    return root + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts)


def _reason(error: ValidationError) -> str:
    """What is wrong, in the words the protocol has always used."""
    keyword, expected, value = error.validator, error.validator_value, error.instance
    if keyword == "type":
        names = expected if isinstance(expected, list) else [expected]
        return f"expected {' or '.join(names)}, got {type(value).__name__}"
    if keyword == "required":
        missing = [key for key in expected if key not in value]
        return f"missing required field {missing[0]!r}"
    if keyword == "additionalProperties":
        known = error.schema.get("properties", {})
        unknown = [key for key in value if key not in known]
        return f"unknown field {unknown[0]!r}"
    if keyword == "const":
        return f"must be {expected!r}"
    if keyword == "enum":
        return f"must be one of {', '.join(map(repr, expected))}"
    if keyword == "anyOf":
        options: dict[Any, str] = {}
        for sub in sorted(error.context or (), key=lambda e: len(e.absolute_path)):
            options.setdefault(sub.relative_schema_path[0], _reason(sub))
        return "matches none of: " + "; ".join(options[k] for k in sorted(options))
    words = {
        "minimum": "must be at least {}",
        "maximum": "must be at most {}",
        "minLength": "must have at least {} characters",
        "maxLength": "must have at most {} characters",
        "pattern": "must match {}",
        "maxItems": "must have at most {} items",
        "minItems": "must have at least {} items",
    }
    if keyword in words:
        return words[str(keyword)].format(expected)
    return str(error.message)
