"""A symbol's callers and callees as a tree whose nodes load their own when expanded."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from tui.calls import CallLevel, step_label

DIRECTIONS = ("callers", "callees")
LOADING = Text("loading…", style="dim italic")


@dataclass(frozen=True, slots=True)
class CallNode:
    """What a node of the tree stands for."""

    ref: str  # the symbol; for a branch, the root's
    direction: str | None  # what expanding it asks for (None: it has nothing to load)
    above: tuple[str, ...]  # the refs from the root down to this node, its own included
    opens: bool = True  # Enter opens its code page (not the root's: that is the page shown)


class CallTree(Tree[CallNode]):
    """The root is the symbol, then a "callers" and a "callees" branch. Expanding a symbol
    posts ``CallTree.Expand`` (once): whoever handles it asks the vault and calls ``grow``.
    Enter posts ``CallTree.Open`` for a symbol; a cycle is marked and never expands."""

    BINDINGS = [
        Binding("enter", "open_node", "Open"),
        Binding("space", "toggle_node", "Expand"),
        Binding("right", "expand_node", "Expand", show=False),
        Binding("left", "collapse_node", "Collapse", show=False),
    ]

    class Expand(Message):
        """Load the callers (or callees) of ``node``'s symbol, then ``grow`` it."""

        def __init__(self, node: TreeNode[CallNode]) -> None:
            super().__init__()
            self.node = node

    class Open(Message):
        """Open the code page of ``ref``."""

        def __init__(self, ref: str) -> None:
            super().__init__()
            self.ref = ref

    def __init__(self, **kwargs) -> None:
        super().__init__("", **kwargs)
        self.auto_expand = False  # Enter opens; Space and → expand
        self.guide_depth = 3  # an 80-column pane keeps room for the names
        self._waiting: list[TreeNode[CallNode]] = []  # asked for, not grown yet

    def show(self, ref: str | None, symbol: str = "") -> None:
        """The tree of ``ref`` (a symbol's code ref), both branches opened; None: empty."""
        self._waiting = []
        self.clear()
        if ref is None:
            return
        self.reset(Text(symbol or ref, style="bold"), CallNode(ref, None, (ref,), opens=False))
        for direction in DIRECTIONS:
            self.root.add(direction, CallNode(ref, direction, (ref,), opens=False))
        self.root.expand()
        for branch in self.root.children:
            branch.expand()
        self.cursor_line = 0

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[CallNode]) -> None:
        node = event.node
        if node.data is None or node.data.direction is None or node.children or node in self._waiting:
            return
        self._waiting.append(node)
        node.add_leaf(LOADING)
        self.post_message(self.Expand(node))

    def grow(self, node: TreeNode[CallNode], level: CallLevel | None) -> None:
        """Put ``level`` under ``node``; None (the vault could not answer) lets a later
        expansion ask again. A node of a tree shown since is left alone."""
        if node not in self._waiting:
            return
        self._waiting.remove(node)
        node.remove_children()
        data = node.data
        if level is None:
            node.collapse()
            return
        for step in level.steps:
            child = CallNode(step.ref, data.direction if step.expandable else None, (*data.above, step.ref))
            node.add(step_label(step), child, allow_expand=step.expandable)
        if level.note:
            node.add_leaf(Text(level.note, style="dim italic"))
        if node.parent is self.root:
            node.set_label(f"{data.direction} ({len(level.steps)})")

    def action_open_node(self) -> None:
        """Enter: a symbol's code page; on a branch, open or close it."""
        node = self.cursor_node
        if node is None:
            return
        if node.data is not None and node.data.opens:
            self.post_message(self.Open(node.data.ref))
        elif node.allow_expand:
            node.toggle()

    def action_expand_node(self) -> None:
        """→: expand, or go to the first child of an expanded node."""
        node = self.cursor_node
        if node is None:
            return
        if node.allow_expand and not node.is_expanded:
            node.expand()
        elif node.children:
            self.move_cursor(node.children[0])

    def action_collapse_node(self) -> None:
        """←: collapse, or go to the parent of a collapsed node."""
        node = self.cursor_node
        if node is None:
            return
        if node.is_expanded and node.children:
            node.collapse()
        elif node.parent is not None:
            self.move_cursor(node.parent)

    def labels(self) -> list[str]:
        """Every visible line of the tree, indented two spaces a level (for tests and captures)."""
        lines: list[str] = []

        def walk(node: TreeNode[CallNode], depth: int) -> None:
            lines.append("  " * depth + str(node.label))
            if node.is_expanded:
                for child in node.children:
                    walk(child, depth + 1)

        walk(self.root, 0)
        return lines
