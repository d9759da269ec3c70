"""The operations table against the shells: the argparse parser must offer every row's
parameters under the same names, defaults and kinds, and the daemon must route only
operations of the table. A flag renamed in one place and not the other fails here."""

from __future__ import annotations

import argparse
import re

import pytest

from vault_engine.daemon.protocol import OPS
from vault_engine.errors import BadArgument
from vault_engine.operations import BY_NAME, OPERATIONS, Param

# Flags only a terminal has use for (a file to read, an exit code, every link at once).
CLI_ONLY = {"links": {"all"}, "checkpoint new": {"from_json"}, "deadend check": {"fail_on_hit"},
            "index": {"rebuild", "vector_cache"}}  # a repair and a cache folder: a person's


def subparser(command: str) -> argparse.ArgumentParser:
    from vault_engine.cli.main import build_parser

    parser = build_parser()
    for word in command.split():
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = action.choices[word]
    return parser


def options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    common = {"help", "json", "vault", "debug", "no_daemon"}
    return {a.dest: a for a in parser._actions if a.dest not in common}


@pytest.mark.parametrize("op", OPERATIONS, ids=lambda op: op.name)
def test_every_row_matches_its_cli_command(op):
    actions = options(subparser(op.command))
    assert set(actions) - CLI_ONLY.get(op.command, set()) == {p.name for p in op.params}
    for p in op.params:
        action = actions[p.name]
        assert (action.option_strings == []) == p.positional, p.name
        if not p.positional:
            assert p.flag in action.option_strings, p.name
        if p.type is bool:
            assert isinstance(action, argparse._StoreTrueAction), p.name
        elif p.type is list:
            assert isinstance(action, argparse._AppendAction) and action.default == [], p.name
        else:
            assert action.default == p.default, p.name
            # numbers are checked by range, text for blankness (cli/context.py), as Param.check does
            assert (action.type is not None) == (p.type in (int, str) and not action.choices), p.name
        if p.required and not p.positional:
            assert action.required, p.name
        assert action.help, p.name


def test_the_daemon_routes_every_read_of_the_table_and_no_write():
    assert OPS == {"search": "search", "show": "show", "links": "links", "resume": "resume",
                   "deadend.check": "deadend_check", "deadend.list": "deadend_list", "status": "status",
                   "find": "find", "outline": "outline", "calls": "calls"}
    assert not {op.method for op in OPERATIONS if op.writes} & set(OPS.values())


def test_argv_builds_the_command_line_a_person_would_type():
    argv = BY_NAME["deadend_check"].argv({"proposal": "keep sessions in Redis", "project": "p", "k": 2, "lexical": True})
    assert argv == ["deadend", "check", "keep sessions in Redis", "--project", "p", "-k", "2", "--lexical"]
    argv = BY_NAME["checkpoint_new"].argv({"project": "p", "agent": "a", "next": ["x", "y"]})
    assert argv == ["checkpoint", "new", "--project", "p", "--agent", "a", "--next", "x", "--next", "y"]


@pytest.mark.parametrize(("param", "value", "message"), [
    (Param("k", int, "h", 3, low=1, high=9), 0, "k 0 is out of range: use 1..9"),
    (Param("k", int, "h", 3, low=1), True, "k must be a whole number (got True)"),
    (Param("lexical", bool, "h", False), "yes", "lexical must be true or false (got 'yes')"),
    (Param("next", list, "h", ()), [1], "next must be a list of strings (got [1])"),
    (Param("next", list, "h", ()), [{"text": "a"}], "next must be a list of strings (got [{'text': 'a'}])"),
    (Param("failed", list, "h", (), objects=True), [{"text": "a", "why": "b"}],
     """failed must be a list of strings or {"text": ..., "reason": ...} objects (got [{'text': 'a', 'why': 'b'}])"""),
    (Param("query", str, "h", required=True), "  ", "query must not be empty"),
    (Param("project", str, "h"), "", "project must not be empty: leave it out instead"),
])
def test_a_bad_value_is_one_clear_line(param, value, message):
    with pytest.raises(BadArgument, match="^" + re.escape(message) + "$"):
        param.check(value)


def test_arguments_fill_defaults_and_refuse_unknown_names():
    op = BY_NAME["search"]
    assert op.arguments({"query": "x"})["k"] == 10
    with pytest.raises(BadArgument, match="unknown argument 'limit'; it takes: query, k,"):
        op.arguments({"query": "x", "limit": 3})
    with pytest.raises(BadArgument, match="^unknown argument 'bogus'; it takes no arguments$"):
        BY_NAME["status"].arguments({"bogus": 1})
    assert BY_NAME["checkpoint_new"].arguments({"project": "p", "agent": "a", "next": "one step"})["next"] == ("one step",)
