"""MCP tool definitions from the operations table, and one call answered as ``--json`` would.

Pure of the SDK: plain dicts and functions, so the schema and the answer can be tested
without a server, and the server module only wires them to the protocol.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from vault_engine.errors import BadArgument, VaultError, one_line
from vault_engine.mcp.budget import cap
from vault_engine.operations import BY_NAME, OPERATIONS, Operation, Param

DEFAULT_MAX_TOKENS = 4000  # a tool answer's cap: well under what agents complain about (10k)
BRIEF_JSON_FACTOR = 4  # resume's answer against its brief's budget: fields and Markdown, with room
MIN_MAX_TOKENS, MAX_MAX_TOKENS = 100, 100_000
_JSON_TYPES = {str: "string", int: "integer", bool: "boolean"}
_CAP_HELP = f"answer cap in tokens (default {DEFAULT_MAX_TOKENS})"


def param_schema(param: Param) -> dict[str, Any]:
    """The JSON Schema of one parameter: type, range, default, and its CLI help."""
    item: dict[str, Any] = {"type": "string"}
    if param.objects:  # a Failed item's keys, as an agent reads them (qa81: in the help alone)
        item = {"anyOf": [item, {"type": "object", "required": ["text"], "additionalProperties": False,
                                 "properties": {"text": {"type": "string"}, "reason": {"type": "string"}}}]}
    schema: dict[str, Any] = ({"type": "array", "items": item} if param.type is list
                              else {"type": _JSON_TYPES[param.type]})
    # a list given as one string is that one item (Param.check): said, as the schema says the rest
    schema["description"] = param.help + (" (or one string)" if param.type is list else "")
    if param.choices:
        schema["enum"] = list(param.choices)
    if param.low is not None:
        schema["minimum"] = param.low
    if param.high is not None:
        schema["maximum"] = param.high
    if param.default not in (None, ()):
        schema["default"] = param.default
    return schema


def input_schema(op: Operation) -> dict[str, Any]:
    """Every parameter of ``op``, plus ``max_tokens`` (the answer cap) unless it has its own."""
    properties = {p.name: param_schema(p) for p in op.params}
    if not op.owns_budget:
        properties["max_tokens"] = {"type": "integer", "minimum": MIN_MAX_TOKENS,
                                    "maximum": MAX_MAX_TOKENS, "description": _CAP_HELP}
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    required = [p.name for p in op.params if p.required]
    if required:
        schema["required"] = required
    return schema


def tool_definitions() -> list[dict[str, Any]]:
    """``name``, ``description`` and ``inputSchema`` of every tool, in table order."""
    return [{"name": op.name, "description": op.summary, "inputSchema": input_schema(op)} for op in OPERATIONS]


@dataclass(frozen=True, slots=True)
class Answer:
    """One tool result: the JSON (structured content), its text, and whether it is an error."""

    data: dict[str, Any] | None
    text: str
    error: bool = False


def answer(name: str, arguments: Mapping[str, Any] | None, vault: Any) -> Answer:
    """Run tool ``name`` on ``vault`` (a Vault or the daemon-first stand-in). A user error is
    an error answer in one line; the caller decides what an unexpected exception becomes."""
    op = BY_NAME.get(name)
    if op is None:
        return failure(f"no tool {name!r}; the tools are: {', '.join(BY_NAME)}")
    given = dict(arguments or {})
    try:
        _refuse_unknown(op, given)
        budget = _budget(op, given)
        data = op.run(vault, given)
    except VaultError as exc:
        return failure(f"{name}: {exc}")
    data = cap(data, budget)
    return Answer(data, json.dumps(data, ensure_ascii=False))


def failure(message: str) -> Answer:
    """An error answer: one line, whatever the message held."""
    return Answer(None, one_line(message), error=True)


def _refuse_unknown(op: Operation, given: Mapping[str, Any]) -> None:
    """An argument the tool's schema does not list is an error naming every one it does,
    ``max_tokens`` (the answer cap, taken by every tool) included."""
    accepted = list(input_schema(op)["properties"])
    unknown = sorted(set(given) - set(accepted))
    if unknown:
        raise BadArgument(f"unknown argument {unknown[0]!r}; it takes: {', '.join(accepted)}")


def _budget(op: Operation, given: dict[str, Any]) -> int:
    """The answer's cap. ``resume`` fits its brief to its own ``max_tokens`` and keeps in its
    JSON fields just what the brief holds, about three times its Markdown in all (the sample
    vault's 1,422-token brief is 16,626 characters): its cap is four times its budget, never
    less than the default. Capped at the default alone, its JSON lost earlier dead ends the
    Markdown beside it still listed (qa37 N7); uncapped, a goal longer than the brief would
    come whole."""
    if op.owns_budget:
        return max(DEFAULT_MAX_TOKENS, BRIEF_JSON_FACTOR * op.arguments(given)["max_tokens"])
    value = given.pop("max_tokens", None)
    if value is None:
        return DEFAULT_MAX_TOKENS
    if isinstance(value, bool) or not isinstance(value, int) or not MIN_MAX_TOKENS <= value <= MAX_MAX_TOKENS:
        raise BadArgument(f"max_tokens must be a whole number within {MIN_MAX_TOKENS}..{MAX_MAX_TOKENS} "
                          f"(got {value!r})")
    return value
