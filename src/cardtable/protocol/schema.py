"""Check values against the protocol's JSON schemas with `jsonschema` (Draft 2020-12).

One validator is built per schema, the first time the schema is used, and kept. Its errors are put
in the protocol's own words: :class:`SchemaError` names the offending part by a path (``$.a.b``,
``$.items[2]``) and says what is wrong (``missing required field 'data'``, ``unknown field 'x'``,
``expected integer, got str``), one error per value: the one nearest the top of the value, the
first found among those. One deliberate strictness beyond the standard: an ``integer`` is an int
(``2.0`` is refused, as Python's JSON decoder keeps it a float and the server must not take it for
a count).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from jsonschema.validators import extend

_TYPES = Draft202012Validator.TYPE_CHECKER.redefine(
    "integer", lambda _checker, value: isinstance(value, int) and not isinstance(value, bool)
)
#: Draft 2020-12 with integers that are ints.
ProtocolValidator = extend(Draft202012Validator, type_checker=_TYPES)

# id(schema) -> (schema, its validator); the schema is kept so that its id stays its own
_VALIDATORS: dict[int, tuple[Mapping[str, Any], Any]] = {}


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
        ProtocolValidator.check_schema(schema)
        hit = (schema, ProtocolValidator(schema))
        _VALIDATORS[id(schema)] = hit
    return hit[1]


def validate(value: Any, schema: Mapping[str, Any], path: str = "$") -> None:
    """Raise :class:`SchemaError` unless ``value`` matches ``schema``."""
    validator = validator_for(schema)
    error = _first(validator.iter_errors(value))
    if error is not None:
        raise SchemaError(_path(path, error.absolute_path), _reason(error))


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
