"""The operations table: each public operation once, with its parameters and its JSON.

A row names the operation, the CLI command that runs it, the :class:`~vault_engine.vault.Vault`
method that answers it, its parameters (the CLI's names, types, defaults, ranges and help) and
how its result becomes the JSON that ``--json`` prints. The MCP tools are built from these
rows, the CLI's envelopes for ``links`` and ``deadend list`` come from here, and
``tests/test_operations.py`` fails when the argparse parser drifts from a row. Adding a tool
(``find``, ``callers``...) is one more row.

Kept light on purpose: importing this imports no store, no Vault and nothing heavy; a row
reaches its Vault method by name on whatever object it is handed (a Vault, or the CLI's
daemon-first stand-in).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from vault_engine.constants import FIND_FACETS, FIND_TIERS, MAX_FOLLOW, MIN_BRIEF_TOKENS, SEARCH_KINDS
from vault_engine.errors import BadArgument

Args = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter, named as the CLI names it (``max_tokens`` is ``--max-tokens``).

    ``keyword`` is the Vault method's keyword when it differs (``lexical`` -> ``lexical_only``);
    ``positional`` ones are passed first, in order. ``flag`` is derived, never written twice."""

    name: str
    type: type  # str, int, bool or list (a list of strings: a repeatable flag)
    help: str
    default: Any = None
    required: bool = False
    positional: bool = False
    low: int | None = None
    high: int | None = None
    keyword: str | None = None
    objects: bool = False  # a list whose items may also be {"text", "reason"} objects (Failed items)
    choices: tuple[str, ...] = ()  # the values it takes, when a closed set: the MCP schema's enum

    @property
    def flag(self) -> str | None:
        """The CLI spelling: ``-k``, ``--max-tokens``; None for a positional argument."""
        if self.positional:
            return None
        return f"-{self.name}" if len(self.name) == 1 else "--" + self.name.replace("_", "-")

    def check(self, value: Any) -> Any:
        """``value`` as this parameter takes it, or :class:`BadArgument` in one line."""
        if self.type is bool:
            if not isinstance(value, bool):
                raise BadArgument(f"{self.name} must be true or false (got {value!r})")
            return value
        if self.type is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise BadArgument(f"{self.name} must be a whole number (got {value!r})")
            if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
                span = f"{self.low}..{self.high}" if self.high is not None else f"{self.low} or more"
                raise BadArgument(f"{self.name} {value} is out of range: use {span}")
            return value
        if self.type is list:
            if isinstance(value, str):
                value = [value]  # one item given as a string: what an agent means
            if not isinstance(value, list) or not all(isinstance(v, str) or (self.objects and _text_object(v))
                                                      for v in value):
                shape = ' or {"text": ..., "reason": ...} objects' if self.objects else ""
                raise BadArgument(f"{self.name} must be a list of strings{shape} (got {value!r})")
            return tuple(value)
        if not isinstance(value, str):
            raise BadArgument(f"{self.name} must be a string (got {value!r})")
        if not value.strip():  # given, yet empty: never a name nor a filter anyone means
            raise BadArgument(f"{self.name} must not be empty" + ("" if self.required else ": leave it out instead"))
        return value


def _text_object(value: Any) -> bool:
    """``{"text": "...", "reason": "..."}``, the reason optional: as ``checkpoint new --from-json``
    takes a Failed item."""
    return (isinstance(value, dict) and set(value) <= {"text", "reason"} and isinstance(value.get("text"), str)
            and isinstance(value.get("reason", ""), (str, type(None))))


def _to_json(result: Any, args: Args) -> Any:
    """Most results carry their own JSON; status and reinforce already are plain dicts."""
    return result.to_json() if hasattr(result, "to_json") else result


def sourced_links(links: Any) -> list[dict[str, Any]]:
    """Each link's JSON with the note it is written in (``links`` and ``links --all``)."""
    return [{"source": link.source, **link.to_json()} for link in links]


def _links_json(links: Any, args: Args) -> dict[str, Any]:
    return {"ref": args["ref"], "backlinks": args["backlinks"], "links": sourced_links(links)}


def _dead_ends_json(listed: Any, args: Args) -> dict[str, Any]:
    return {"project": args["project"], "dead_ends": [r.to_json() for r in listed],
            "notices": list(listed.notices)}


def _checkpoint_call(vault: Any, args: Args) -> Any:
    """``checkpoint new`` hands the Vault one draft, not its flags."""
    from vault_engine.memory.checkpoints import CheckpointDraft, failed_items

    draft = CheckpointDraft(args["project"], args["agent"], args["summary"] or "", tuple(args["next"]),
                            failed_items(args["failed"]), tuple(args["link"]), args["decision"] or "")
    return vault.checkpoint_new(draft)


def _index_call(vault: Any, args: Args) -> Any:
    """``index`` as an agent runs it: incremental, never a rebuild (a terminal's repair)."""
    return vault.index(embed=not args["no_embed"])


def reinforce_or_undo(vault: Any, args: Args) -> Any:
    """``reinforce``, or with ``undo`` the taking back of the note's newest reinforcement."""
    if not args["undo"]:
        return vault.reinforce(args["ref"], by=args["by"], why=args["why"])
    if args["why"]:
        raise BadArgument("why is for a reinforcement, not its undo")
    return vault.undo_last_reinforce(args["ref"], by=args["by"])


def search_call(vault: Any, args: Args) -> Any:
    """``search`` as every shell calls it (the CLI passes its parsed flags, by the same names)."""
    if args["lexical"] and args["semantic"]:
        raise BadArgument("lexical and semantic exclude each other: pass one of them, or neither for both arms")
    return vault.search(args["query"], k=args["k"], kind=args["kind"], project=args["project"],
                        tap=args["tap"], lexical_only=args["lexical"], semantic_only=args["semantic"],
                        decay=not args["no_decay"], follow=args["follow"], exclude_tests=args["exclude_tests"])


@dataclass(frozen=True, slots=True)
class Operation:
    """One row: ``name`` (the MCP tool), ``command`` (the CLI words), ``method`` (the Vault's).

    ``call`` replaces the plain "method(positionals, **keywords)" where the Vault takes
    something else (a draft); ``envelope`` turns the result into the ``--json`` output."""

    name: str
    command: str
    method: str
    summary: str
    params: tuple[Param, ...] = ()
    envelope: Callable[[Any, Args], Any] = _to_json
    call: Callable[[Any, Args], Any] | None = None
    writes: bool = False
    owns_budget: bool = False  # a max_tokens of its own (resume fits its brief)

    def param(self, name: str) -> Param:
        return next(p for p in self.params if p.name == name)

    def arguments(self, given: Mapping[str, Any] | None) -> dict[str, Any]:
        """Every parameter's value: ``given`` checked, defaults for the rest. An unknown or a
        missing argument is a :class:`BadArgument` naming what is accepted."""
        given = dict(given or {})
        names = [p.name for p in self.params]
        unknown = sorted(set(given) - set(names))
        if unknown:
            takes = f"it takes: {', '.join(names)}" if names else "it takes no arguments"
            raise BadArgument(f"unknown argument {unknown[0]!r}; {takes}")
        values = {}
        for p in self.params:
            if given.get(p.name) is None:
                if p.required:
                    raise BadArgument(f"{p.name} is required ({p.help})")
                values[p.name] = tuple(p.default or ()) if p.type is list else p.default
            else:
                values[p.name] = p.check(given[p.name])
        return values

    def run(self, vault: Any, given: Mapping[str, Any] | None) -> Any:
        """Check ``given``, call the Vault, return the JSON ``--json`` would print."""
        args = self.arguments(given)
        if self.call is not None:
            result = self.call(vault, args)
        else:
            positional = [args[p.name] for p in self.params if p.positional]
            keywords = {p.keyword or p.name: args[p.name] for p in self.params if not p.positional}
            result = getattr(vault, self.method)(*positional, **keywords)
        return self.envelope(result, args)

    def argv(self, given: Mapping[str, Any]) -> list[str]:
        """The CLI words that run this operation with ``given`` (tests compare both shells)."""
        words = self.command.split()
        for p in self.params:
            value = given.get(p.name)
            if value is None or value is False:
                continue
            if p.positional:
                words.append(str(value))
                continue
            flag = p.flag
            assert flag is not None  # every keyword parameter has one
            if p.type is bool:
                words.append(flag)
            elif p.type is list:
                for item in value:
                    if isinstance(item, dict):  # a {"text", "reason"} item, as --failed writes it
                        item = f"{item['text']} -- {item['reason']}" if item.get("reason") else item["text"]
                    words += [flag, str(item)]
            else:
                words += [flag, str(value)]
        return words


def _calls(direction: str) -> Callable[[Any, Args], Any]:
    """``callers``/``callees``: one Vault method, the direction fixed by the operation."""
    return lambda vault, args: vault.calls(args["symbol"], direction=direction, depth=args["depth"],
                                           exclude_tests=args["exclude_tests"], follow=args["follow"])


_PROJECT = "the project, e.g. drone-audio"
_FOLLOW = "add why notes' sections, N hops"
_FOLLOW_NOTE = "add linked sections (code: why notes), N hops"
_REF = "path[#Heading] or notion://<id>[#Heading], vault-relative"

OPERATIONS: tuple[Operation, ...] = (
    Operation("search", "search", "search", "Hybrid search over vault sections; hits carry resolved links.", (
        Param("query", str, "what to look for", required=True, positional=True),
        Param("k", int, "number of hits", 10, low=1, high=1000),
        Param("kind", str, "only this kind", choices=SEARCH_KINDS),
        Param("project", str, "only notes of this project"),
        Param("tap", str, "only documents of this tap"),
        Param("lexical", bool, "BM25 only (fast, never loads the model)", False, keyword="lexical_only"),
        Param("semantic", bool, "embeddings only", False, keyword="semantic_only"),
        Param("follow", int, "add linked sections, N hops", 0, low=0, high=MAX_FOLLOW),
        Param("no_decay", bool, "rank without decay", False),
        Param("exclude_tests", bool, "leave out test code", False),
    ), call=search_call),
    Operation("show", "show", "show", "A note or one section of it, with its links; or code.", (
        Param("ref", str, _REF + "; or path#Symbol", required=True, positional=True),
        Param("follow", int, _FOLLOW_NOTE, 0, low=0, high=MAX_FOLLOW),
    )),
    Operation("links", "links", "links", "Resolved links of a note or section, or its backlinks.", (
        Param("ref", str, _REF, required=True, positional=True),
        Param("backlinks", bool, "links pointing at ref instead", False),
    ), envelope=_links_json),
    Operation("resume", "resume", "resume",
              "Brief for an agent arriving on a project: last checkpoint, dead ends, notes, specs.", (
        Param("project", str, "the project to resume", required=True),
        Param("max_tokens", int, "budget for the brief (4 characters a token)", 2000, low=MIN_BRIEF_TOKENS),
    ), owns_budget=True),
    Operation("deadend_check", "deadend check", "deadend_check",
              "Has this been tried? Checks a proposal against every recorded dead end.", (
        Param("proposal", str, "what you are about to try", required=True, positional=True),
        Param("project", str, "your project: others' rulings are flagged"),
        Param("k", int, "at most this many rulings", 3, low=1, high=100),
        Param("lexical", bool, "words only (fast, never loads the model)", False, keyword="lexical_only"),
    )),
    Operation("deadend_list", "deadend list", "deadend_list", "Every recorded dead end, newest first.", (
        Param("project", str, "only this project (default: all)"),
    ), envelope=_dead_ends_json),
    Operation("checkpoint_new", "checkpoint new", "checkpoint_new",
              "Write an agent checkpoint (Summary, Decision, Next, Failed); returns its ref.", (
        Param("project", str, _PROJECT, required=True),
        Param("agent", str, "who checks in, e.g. claude-7f3", required=True),
        Param("summary", str, "what was done"),
        Param("decision", str, "what was chosen over the failed"),
        Param("next", list, "next steps", ()),
        Param("failed", list, "approaches ruled out: 'APPROACH -- REASON' or {text, reason}", (), objects=True),
        Param("link", list, "refs to link", ()),
    ), call=_checkpoint_call, writes=True),
    Operation("reinforce", "reinforce", "reinforce", "Mark a note useful, so it stops fading; or undo that.", (
        Param("ref", str, _REF, required=True, positional=True),
        Param("by", str, "who reinforces (agent or person)"),
        Param("why", str, "what it was useful for"),
        Param("undo", bool, "undo its newest reinforcement", False),
    ), call=reinforce_or_undo, writes=True),
    Operation("status", "status", "status", "Index health: counts, stale files, unresolved links, model, watcher."),
    # An MCP client may have no shell: answers that say the index is stale must be actionable
    # where they are read (qa54: an agent with MCP alone could not run `vault-engine index`)
    Operation("index", "index", "index",
              "Bring the index up to date after notes or source files changed (an answer says it is stale).", (
        Param("no_embed", bool, "words only: vectors by a later index", False),
    ), call=_index_call, writes=True),
    Operation("find", "find", "find",
              "Where is it? Exact symbol or path, else a suggestion, else memory notes.", (
        Param("query", str, "a symbol, a path or a question", required=True, positional=True),
        Param("k", int, "most hits", 10, low=1, high=100),
        Param("tier", str, "one tier only", choices=FIND_TIERS),
        Param("facet", str, "memory facet", choices=FIND_FACETS),
        Param("follow", int, _FOLLOW, 0, low=0, high=MAX_FOLLOW),
    )),
    Operation("outline", "outline", "outline", "A source file's symbols with line spans and why notes.", (
        Param("path", str, "path in the code tap", required=True, positional=True),
        Param("follow", int, _FOLLOW, 0, low=0, high=MAX_FOLLOW),
    )),
    *(Operation(direction, direction, "calls", summary, (
        Param("symbol", str, "name, Qualified.name or path#Qualified.name", required=True, positional=True),
        Param("depth", int, "calls away", 1, low=1, high=5),
        Param("exclude_tests", bool, "leave out test code", False),
        Param("follow", int, _FOLLOW, 0, low=0, high=MAX_FOLLOW),
    ), call=_calls(direction))
      for direction, summary in (("callers", "Who calls this symbol, depth calls deep."),
                                 ("callees", "What this symbol calls, depth calls deep."))),
)

BY_NAME: dict[str, Operation] = {op.name: op for op in OPERATIONS}
