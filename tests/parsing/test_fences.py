"""Fenced code blocks as CommonMark reads them (vault_engine/parsing/fences.py), and the
readers that walk a note's lines through them."""

from vault_engine.parsing.checkpoints import blank_code
from vault_engine.parsing.fences import CLOSE, CODE, OPEN, TEXT, fence_roles, info_word
from vault_engine.parsing.mentions import mentions_in
from vault_engine.parsing.readable import readable_text
from vault_engine.retrieval.lookup import block_lines

# A note about Markdown: a ``` block showing a ~~~ example, then text again.
NESTED = ["Intro `OrderBook.place`.", "```markdown", "~~~", "`Inside.code` ^decision", "~~~",
          "`Still.code`", "```", "After: `After.block` ^after"]


def test_a_fence_closes_only_with_its_own_character_at_least_as_long():
    assert list(fence_roles(NESTED)) == [TEXT, OPEN, CODE, CODE, CODE, CODE, CLOSE, TEXT]
    assert list(fence_roles(["````", "```", "````"])) == [OPEN, CODE, CLOSE]
    assert list(fence_roles(["~~~", "~~~~ ", "text"])) == [OPEN, CLOSE, TEXT]
    assert list(fence_roles(["```", "~~~ js"])) == [OPEN, CODE]  # never closed: code to the end
    assert list(fence_roles(["```a``` b", "text"])) == [TEXT, TEXT]  # a code span, not a fence
    assert info_word("```js title=x") == "js" and info_word("~~~") == ""


def test_every_reader_of_lines_leaves_the_whole_block_out():
    assert mentions_in("\n".join(NESTED)) == [("OrderBook.place", 1), ("After.block", 8)]
    assert blank_code(NESTED) == [NESTED[0], "", "", "", "", "", "", NESTED[7]]
    assert block_lines("\n".join(NESTED), "decision") is None  # an id in code names no block
    assert block_lines("\n".join(NESTED), "after") == (7, 7)
    text = readable_text("\n".join(NESTED))
    assert "Inside.code" in text and "markdown" in text and "~~~" in text  # code kept, as written
    assert "```" not in text


def test_an_id_on_its_own_line_after_a_fence_names_the_whole_fence():
    """A mermaid diagram's `^overview-cdc-diagram` showed only its closing ``` (qa52)."""
    text = "Intro.\n\n```mermaid\ngraph LR\n  A --> B\n```\n^diagram\n\nAfter."
    assert block_lines(text, "diagram") == (2, 5)
    assert block_lines(text.replace("```\n^diagram", "```\n\n^diagram"), "diagram") == (2, 5)


def test_a_fence_inside_an_html_comment_block_is_none():
    """The KEP template's first comment holds an example fence: the rest of every KEP was code."""
    lines = ["<!--", "Instructions:", "```", "example", "```", "-->", "Text after.", "```", "code", "```"]
    assert list(fence_roles(lines)) == [TEXT] * 7 + [OPEN, CODE, CLOSE]
    assert list(fence_roles(["<!-- one line -->", "```", "x"])) == [TEXT, OPEN, CODE]
    assert list(fence_roles(["text <!-- inline", "```"])) == [TEXT, OPEN]  # opens no block: a fence
    assert readable_text("\n".join(lines)) == "Text after.\ncode"


def test_code_spans_close_only_on_a_run_of_as_many_backticks():
    from vault_engine.parsing.fences import code_spans

    line = "a `b` c ``d` e`` f `g"
    assert [line[s:e] for s, e in code_spans(line)] == ["`b`", "``d` e``"]  # the last ` opens nothing
    assert code_spans("`" * 5000) == [] and code_spans("`` ` ``") == [(0, 7)]


def test_comments_are_blanked_in_place_but_none_opens_in_code():
    from vault_engine.parsing.fences import comments_blanked

    text = ("x %% hid\nden %% y `%%` z <!-- c --> w\n```\n%% in code\n```\n"
            "printf's `%%` is no comment\n<!-- open to the end\n- DEADEND: a -- b")
    blanked = comments_blanked(text)
    assert len(blanked) == len(text) and blanked.count("\n") == text.count("\n")
    assert blanked.split("\n") == ["x       ", "       y `%%` z            w", "```", "%% in code", "```",
                                   "printf's `%%` is no comment", " " * 20, " " * 17]


def test_a_fence_left_open_in_a_list_item_ends_with_the_item():
    """As CommonMark reads it: the rest of a checkpoint's Failed list had been code (qa151).
    A fence at the top level runs on, however the lines in it start."""
    lines = ["- Pin numpy -- the build broke:", "  ```", "  error: no wheel", "- Vendor the wheel -- licence",
             "- Build from source -- slow"]
    assert list(fence_roles(lines)) == [TEXT, OPEN, CODE, TEXT, TEXT]
    top = ["```", "- not an item", "  - nor this", "```", "- an item"]
    assert list(fence_roles(top)) == [OPEN, CODE, CODE, CLOSE, TEXT]
