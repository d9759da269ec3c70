"""Sections by heading (vault_engine/parsing/sections.py)."""

import pytest

from vault_engine.parsing.sections import (
    distinct_anchors,
    heading_slug,
    normalize_heading,
    parse_blocks,
    section_body,
    split_sections,
)


def sections(body, body_line=1):
    return split_sections(body, parse_blocks(body), body_line)


def test_heading_paths_and_line_ranges():
    body = "intro line\n\n# A\ntext a\n## B\ntext b\n\n### C\nc\n## D\nd\n"
    found = [(s.heading, s.heading_path, s.level, s.line_start, s.line_end) for s in sections(body, 5)]
    assert found == [
        (None, (), 0, 5, 5),
        ("A", ("A",), 1, 7, 8),
        ("B", ("A", "B"), 2, 9, 10),
        ("C", ("A", "B", "C"), 3, 12, 13),
        ("D", ("A", "D"), 2, 14, 15),
    ]


def test_a_note_without_headings_is_one_section():
    (only,) = sections("just\nsome text\n")
    assert (only.heading, only.level, only.text) == (None, 0, "just\nsome text")


def test_headings_in_code_fences_quotes_and_lists_are_not_sections():
    body = "# Real\n```\n# not a heading\n```\n> # quoted\n- item\n\n      # indented in list\n~~~\n## also not\n~~~\n"
    assert [s.heading for s in sections(body)] == ["Real"]


def test_setext_headings_count():
    assert [s.heading for s in sections("Title\n=====\nbody\n\nSub\n---\nmore\n")] == ["Title", "Sub"]


def test_a_setext_heading_over_lines_is_one_line():
    """A merge conflict's `<<<<<<< HEAD` and `ours` above `=======` are one setext heading: the
    brief's `## Last checkpoint: <<<<<<< HEAD` went on to a line of its own (qa60)."""
    body = "## Summary\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> branch\n"
    assert [s.heading for s in sections(body)] == ["Summary", "<<<<<<< HEAD ours"]


def test_empty_preamble_is_not_a_section_and_an_empty_leaf_section_is_kept():
    found = sections("\n\n# A\n# B\nb\n")
    assert [(s.heading, s.text) for s in found] == [("A", "# A"), ("B", "# B\nb")]


def test_an_empty_heading_folds_into_the_deeper_section_under_it():
    found = sections("# Canvas\n\n## Add cards\ntext\n## Link\nmore\n", 3)
    assert [(s.heading, s.heading_path, s.line_start, s.line_end) for s in found] == [
        ("Add cards", ("Canvas", "Add cards"), 3, 6), ("Link", ("Canvas", "Link"), 7, 8)]
    assert section_body(found[0].text, found[0].heading) == "text"


def test_empty_headings_fold_through_several_levels_and_setext():
    found = sections("Title\n=====\n## Part\n### Deep\nbody\n")
    assert [(s.heading, s.heading_path, s.line_start) for s in found] == [("Deep", ("Title", "Part", "Deep"), 1)]
    assert section_body(found[0].text, found[0].heading) == "body"


def test_section_body_drops_the_heading_lines():
    a, = [s for s in sections("# A\none\ntwo\n") if s.heading == "A"]
    assert section_body(a.text, a.heading) == "one\ntwo"
    sub, = [s for s in sections("Sub\n---\nmore\n") if s.heading == "Sub"]
    assert section_body(sub.text, sub.heading) == "more"
    assert section_body("before any heading", None) == "before any heading"


def test_normalize_heading_ignores_case_spacing_and_link_brackets():
    assert normalize_heading("  Token   [[Refresh]] ") == "token refresh"
    assert normalize_heading("Ko\u0308ln") == normalize_heading("K\u00f6ln") == "k\u00f6ln"  # decomposed (qa128)


def test_a_repeated_heading_is_named_by_as_much_of_its_path_as_tells_it_apart():
    body = ("# Doc\n## Design\n### Tokens\nA\n## Ops\n### Tokens\nB\n### Limits\nC\n"
            "## Ops again\n### Rollout\nD\n## Old\n### Ops\n#### Tokens\nE\n")
    found = sections(body)
    assert [(s.heading, a) for s, a in zip(found, distinct_anchors(found))] == [
        ("Tokens", "Design#Tokens"), ("Tokens", "Doc#Ops#Tokens"), ("Limits", None), ("Rollout", None),
        ("Tokens", "Old#Ops#Tokens")]  # "Ops#Tokens" names two: the third part decides


def test_the_very_same_heading_path_twice_is_named_as_github_names_the_anchor():
    found = sections("# Notes\n## SQS\nfirst\n## sqs \nsecond\n## Other\nthird\n")
    # headings compare as refs do: case and spaces aside; the first opens by its heading as written
    assert distinct_anchors(found) == [None, "sqs-1", None]


def test_headings_compare_with_punctuation_as_spaces_as_in_obsidian():
    """Obsidian links "## Appendix: Changes in Tasks 7.0.0" as [[#Appendix Changes in Tasks 7.0.0]]
    (obsidian-tasks-docs holds 18 such links) and still finds the heading."""
    written = "'Tasks: Change status to...' commands"
    assert normalize_heading(written) == normalize_heading("'Tasks Change status to...' commands")
    assert normalize_heading("Appendix: Changes in 7.0.0") == normalize_heading("Appendix Changes in 7.0.0")
    assert normalize_heading("Sample HTML: Full mode") == "sample html full mode"


@pytest.mark.parametrize("heading, slug", [
    ("Integration with [Cluster Autoscaler](https://github.com/kubernetes/autoscaler)",
     "integration-with-cluster-autoscaler"),  # a link: its text
    ("Use _without_ it", "use-without-it"), ("__Only use this__", "only-use-this"),  # emphasis marks go
    ("snake_case name", "snake_case-name"),  # inner underscores stay
    ("Beta to  GA Graduation", "beta-to--ga-graduation"),  # GitHub keeps a double space as two hyphens
    ("The verbs with `impersonate-on:<mode>:` prefix", "the-verbs-with-impersonate-onmode-prefix"),  # code: no tag
    ("Foo <code>bar</code>", "foo-bar"), ("7.0.0 release", "700-release"),
])
def test_a_headings_github_anchor_is_made_from_its_rendered_text(heading, slug):
    # the KEPs' tables of contents link headings written with Markdown by GitHub's anchors
    assert heading_slug(heading) == slug


def test_a_heading_inside_a_comment_is_none():
    """Obsidian hides it; it was a section of its own, searchable, its snippet ending in %% (qa27 F4)."""
    body = ("# Commented\n\nVisible.\n\n%%\n## Hidden heading\nsecret plan\n%%\n\n## After\ntext\n\n"
            "```\n%% not a comment\n```\n## Real\n")
    assert [h[1] for h in parse_blocks(body).headings] == ["Commented", "After", "Real"]
