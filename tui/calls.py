"""What one node of the call tree holds when it is expanded: a symbol's direct callers or
callees from ``Vault.calls`` (depth 1), each marked when it closes a cycle. No Textual here.

The tree is expanded a level at a time, so a cycle (``ping`` calls ``pong`` calls ``ping``,
or a function calling itself) would otherwise unfold forever: a step whose ref is already on
the path from the root is marked ``cycle`` and cannot be expanded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MODULE = "<module>"  # how the call graph names a file's module-level code


@dataclass(frozen=True, slots=True)
class CallStep:
    """A caller (or callee) of the symbol above it in the tree."""

    ref: str  # the code ref the viewer opens
    symbol: str  # its qualified name, or MODULE
    path: str
    line: int | None  # its first line (None: the start itself, calling itself)
    cycle: bool  # already on the path from the root: not expanded again

    @property
    def expandable(self) -> bool:
        """Its own callers/callees can be asked for (module-level code has no symbol to ask with)."""
        return not self.cycle and self.symbol != MODULE


@dataclass(frozen=True, slots=True)
class CallLevel:
    """A node's children: the steps, or (when there are none) a line saying why."""

    steps: tuple[CallStep, ...]
    note: str | None = None


def call_level(answer: Any, above: tuple[str, ...]) -> CallLevel:
    """The direct callers or callees in ``answer`` (a depth-1 ``CallAnswer``); ``above``
    are the refs from the tree's root down to the node being expanded, the cycle check."""
    if answer.status == "ambiguous":
        return CallLevel((), f"ambiguous: {len(answer.candidates)} definitions share the name")
    if answer.status not in ("hit", f"no_{answer.direction}"):
        return CallLevel((), f"{answer.status.replace('_', ' ')}: {answer.reason}")
    steps = [CallStep(node.ref, node.symbol, node.path, node.line_start, node.ref in above)
             for node in answer.nodes if node.hops == 1]  # a function calling itself is among them: a cycle
    if not steps:
        return CallLevel((), f"no {answer.direction} found (never guessed)")  # an unresolvable call has no edge
    return CallLevel(tuple(steps))


def step_label(step: CallStep) -> str:
    """``OrderBook.check  orders.py:6``: the name, then the file's name and the line where
    it starts (the full path is in the ref Enter opens); a cycle says so."""
    where = step.path.rsplit("/", 1)[-1] + (f":{step.line}" if step.line else "")
    name = f"{MODULE}" if step.symbol == MODULE else step.symbol
    return f"{name}  {where}" + ("  ↻ cycle" if step.cycle else "")
