"""Checking a message, scenario or payload against its JSON Schema: a fast yes, jsonschema's no.

Every step of a case sends two protocol messages, and every scenario is checked before it runs;
with jsonschema's validator alone that checking was an eighth of a corpus run. A schema compiled
to Python (fastjsonschema) answers "does it fit?" about ten times sooner, so it is asked first;
only an instance it refuses goes to jsonschema, whose account of what is wrong the reports quote.
jsonschema stays the judge: an instance it finds nothing wrong with fits, whatever the compiled
check said. (The compiled check never accepts what jsonschema refuses: ``test_schema.py`` holds
the two to one verdict on the corpus's payloads, scenarios and protocol messages, whole and each
broken in one place.) A keyword of a draft later than 7 is translated for the compiled check
(``dependentRequired``) or leaves that schema to jsonschema alone.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from functools import cache
from importlib import resources
from typing import Any

import fastjsonschema
import jsonschema


@cache
def _schema(name: str) -> dict[str, Any]:
    """``name``: a path under ``conformance/schemas/`` (``protocol/hook.request.json``)."""
    schema: dict[str, Any] = json.loads(resources.files("conformance").joinpath("schemas", name).read_text("utf-8"))
    return schema


# Keywords of drafts after 7 that the compiled check would silently ignore. ``dependentRequired``
# says what draft 7's ``dependencies`` says, and is given to it so; a schema using any of the others
# is left to jsonschema alone.
_UNTRANSLATED = frozenset(("prefixItems", "unevaluatedProperties", "unevaluatedItems", "dependentSchemas",
                           "$dynamicRef", "$recursiveRef", "minContains", "maxContains"))


def _draft7(node: Any, defs: dict[str, Any] | None = None) -> Any:
    """The schema in draft 7's words, with its own ``#/$defs/...`` references written out in place
    (the compiled check would look for them as documents of their own)."""
    if defs is None and isinstance(node, dict):
        defs = node.get("$defs") or {}
    if isinstance(node, list):
        return [_draft7(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    if _UNTRANSLATED & node.keys():
        raise LookupError(sorted(_UNTRANSLATED & node.keys())[0])
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and defs and ref[8:] in defs:
        node = {**defs[ref[8:]], **{k: v for k, v in node.items() if k != "$ref"}}
    out = {key: _draft7(value, defs) for key, value in node.items() if key not in ("dependentRequired", "$defs")}
    if "dependentRequired" in node:
        out["dependencies"] = {**out.get("dependencies", {}), **node["dependentRequired"]}
    return out


@cache
def _fast(name: str) -> Callable[[Any], Any] | None:
    try:
        return fastjsonschema.compile(_draft7(_schema(name)))  # type: ignore[no-any-return]
    except LookupError:
        return None


@cache
def _judge(name: str) -> jsonschema.protocols.Validator:
    schema = _schema(name)
    return jsonschema.validators.validator_for(schema)(schema)  # type: ignore[no-any-return]


def fits(instance: Any, name: str) -> bool:
    """Whether the compiled check accepts ``instance`` (a yes is final; a no is only a hint)."""
    check = _fast(name)
    if check is None:
        return False
    try:
        check(instance)
    except fastjsonschema.JsonSchemaException:
        return False
    return True


def errors(instance: Any, name: str) -> Iterator[jsonschema.ValidationError]:
    """What is wrong with ``instance``, as jsonschema says it; nothing when it fits."""
    if fits(instance, name):
        return iter(())
    return _judge(name).iter_errors(instance)


def best_error(instance: Any, name: str) -> jsonschema.ValidationError | None:
    """The one error jsonschema would lead with, or None when ``instance`` fits."""
    if fits(instance, name):
        return None
    return jsonschema.exceptions.best_match(_judge(name).iter_errors(instance))
