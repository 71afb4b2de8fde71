"""A small JSON Schema checker for the subset the protocol schemas use.

Supported keywords: ``type`` (a name or a list), ``properties``, ``required``,
``additionalProperties`` (bool), ``enum``, ``const``, ``minimum``, ``maximum``, ``minLength``,
``maxLength``, ``pattern``, ``items``, ``maxItems``, ``anyOf``. Unknown keywords (``title``,
``description``, ``examples``, ``$schema``...) are ignored, as JSON Schema says. The standard
library is enough, so the schemas stay the single source of truth without a dependency.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any


class SchemaError(ValueError):
    """``value`` does not match the schema; ``path`` points at the offending part (``$.a.b``)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def _is_type(value: Any, name: str) -> bool:
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "string":
        return isinstance(value, str)
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    raise ValueError(f"unknown schema type {name!r}")


def validate(value: Any, schema: Mapping[str, Any], path: str = "$") -> None:
    """Raise :class:`SchemaError` unless ``value`` matches ``schema``."""
    if "anyOf" in schema:
        errors = []
        for option in schema["anyOf"]:
            try:
                validate(value, option, path)
                break
            except SchemaError as exc:
                errors.append(exc.reason)
        else:
            raise SchemaError(path, "matches none of: " + "; ".join(errors))
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is_type(value, n) for n in names):
            raise SchemaError(path, f"expected {' or '.join(names)}, got {type(value).__name__}")
    if "const" in schema and value != schema["const"]:
        raise SchemaError(path, f"must be {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        raise SchemaError(path, f"must be one of {', '.join(map(repr, schema['enum']))}")
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            raise SchemaError(path, f"must be at least {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            raise SchemaError(path, f"must be at most {schema['maximum']}")
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            raise SchemaError(path, f"must have at least {schema['minLength']} characters")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            raise SchemaError(path, f"must have at most {schema['maxLength']} characters")
        if "pattern" in schema and re.search(schema["pattern"], value) is None:
            raise SchemaError(path, f"must match {schema['pattern']}")
    if isinstance(value, list):
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            raise SchemaError(path, f"must have at most {schema['maxItems']} items")
        if "items" in schema:
            for i, item in enumerate(value):
                validate(item, schema["items"], f"{path}[{i}]")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", ()):
            if key not in value:
                raise SchemaError(path, f"missing required field {key!r}")
        for key, item in value.items():
            if key in props:
                validate(item, props[key], f"{path}.{key}")
            elif schema.get("additionalProperties", True) is False:
                raise SchemaError(path, f"unknown field {key!r}")
