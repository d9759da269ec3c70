"""Link extraction and resolution by Obsidian's rules (vault_engine/parsing/links.py)."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import pytest

from tests.conftest import needs_corpus
from vault_engine.config import parse_config
from vault_engine.parsing.links import LinkResolver, extract_links, mask_code, target_key
from vault_engine.parsing.note import parse_note
from vault_engine.parsing.sections import parse_blocks

EVERY_FORM = """\
Plain [[Note]] and [[Note#Heading]] and [[Note#Heading#Sub]] and [[Note#^block1]].
Shown [[Note|shown text]], embed ![[diagram.png]], same note [[#Local heading]].
Markdown [the spec](../specs/auth%20flow.md#Token%20refresh) and ![img](pics/a.png).
Escaped in a table | [[Note\\|cell text]] |
Not links: `[[in code span]]`, ``[[double ticks]]``, %% [[in comment]] %%, [web](https://x.org/a.md)
%% a multi-line
comment [[hidden too]] %%
```
[[in fence]]
```

    [[indented code]]
"""


def links_of(text):
    blocks = parse_blocks(text)
    return extract_links(mask_code(text, blocks.code_ranges))


def test_every_link_form_is_parsed_with_its_parts():
    found = [(link.target, link.subpath, link.display, link.embed, link.style) for link in links_of(EVERY_FORM)]
    assert found == [
        ("Note", None, None, False, "wiki"),
        ("Note", "Heading", None, False, "wiki"),
        ("Note", "Heading#Sub", None, False, "wiki"),
        ("Note", "^block1", None, False, "wiki"),
        ("Note", None, "shown text", False, "wiki"),
        ("diagram.png", None, None, True, "wiki"),
        ("", "Local heading", None, False, "wiki"),
        ("../specs/auth flow.md", "Token refresh", "the spec", False, "markdown"),
        ("pics/a.png", None, "img", True, "markdown"),
        ("Note", None, "cell text", False, "wiki"),
    ]


def test_a_query_is_no_part_of_a_markdown_links_path():
    text = ('![Transfer](./img01.png?raw=true "Transfer Mechanism") [e](n.md?x=1#Head) '
            '[odd](what%3F.md) [web](https://x.org/a.png?raw=true)')
    assert [(link.target, link.subpath) for link in links_of(text)] == [
        ("./img01.png", None), ("n.md", "Head"), ("what?.md", None)]


def test_links_carry_their_file_line():
    lines = [link.line for link in extract_links("a\n\nb [[X]]\n[[Y]]", body_line=5)]
    assert lines == [7, 8]


@pytest.fixture
def resolver():
    return LinkResolver(
        note_paths=["Note.md", "specs/auth flow.md", "a/Dup.md", "b/Dup.md", "b/deep/Dup.md",
                    "projects/x/Plan.md", "projects/y/Plan.md", "Case Sensitive.md"],
        attachment_paths=["attachments/diagram.png", "pics/a.png"],
    )


def resolve(resolver, target, source="Home.md", style="wiki", subpath=None):
    from vault_engine.model import LinkOccurrence

    return resolver.resolve(LinkOccurrence("", target, subpath, None, False, style, 1), source)


def test_basename_match_is_case_insensitive(resolver):
    assert resolve(resolver, "case sensitive").target_path == "Case Sensitive.md"
    assert resolve(resolver, "NOTE").target_path == "Note.md"
    assert resolve(resolver, "Note.md").target_path == "Note.md"


def test_case_is_ignored_by_lower_casing_as_obsidian_does():
    resolver = LinkResolver(["Straße.md"])
    assert resolve(resolver, "STRASSE").target_path is None  # casefold would make ß "ss"
    assert resolve(resolver, "straße").target_path == "Straße.md"


def test_same_note_link_resolves_to_the_linking_note(resolver):
    assert resolve(resolver, "", source="specs/auth flow.md", subpath="H").target_path == "specs/auth flow.md"


def test_path_suffix_match_when_target_has_a_slash(resolver):
    assert resolve(resolver, "x/Plan").target_path == "projects/x/Plan.md"
    assert resolve(resolver, "y/plan").target_path == "projects/y/Plan.md"
    assert resolve(resolver, "z/Plan").target_path is None  # never guessed


def test_attachments_match_by_full_file_name(resolver):
    assert resolve(resolver, "diagram.png").target_path == "attachments/diagram.png"
    assert resolve(resolver, "diagram").target_path is None


def test_markdown_links_resolve_relative_to_the_note(resolver):
    found = resolve(resolver, "../specs/auth flow.md", source="notes/Home.md", style="markdown")
    assert found.target_path == "specs/auth flow.md"
    assert resolve(resolver, "pics/a.png", source="Home.md", style="markdown").target_path == "pics/a.png"


def test_relative_wikilinks_resolve_from_the_linking_notes_folder(resolver):
    """Obsidian's "relative path" link format: [[../Note]], [[./Other]]."""
    assert resolve(resolver, "../Note", source="specs/Home.md").target_path == "Note.md"
    assert resolve(resolver, "./auth flow", source="specs/Home.md").target_path == "specs/auth flow.md"
    assert resolve(resolver, "../Dup", source="b/deep/Other.md").target_path == "b/Dup.md"
    assert resolve(resolver, "../Note", source="Home.md").target_path is None  # out of the vault
    assert resolve(resolver, "./Note", source="specs/Home.md").target_path is None  # not in that folder


def test_same_name_prefers_the_linking_folder_then_the_shortest_path(resolver):
    in_b = resolve(resolver, "Dup", source="b/deep/Other.md")
    assert (in_b.target_path, in_b.ambiguous) == ("b/deep/Dup.md", True)
    elsewhere = resolve(resolver, "Dup", source="c/Other.md")
    assert (elsewhere.target_path, elsewhere.ambiguous) == ("a/Dup.md", True)
    assert resolve(resolver, "Note").ambiguous is False


def test_same_name_prefers_the_links_own_vault_path_then_the_shortest_path_in_characters():
    """`[[Note]]` from `b/` had taken `b/Note.md` over the root's `Note.md`, and `Archive/Note.md`
    had won over `a/b/Note.md` by its fewer folders (qa175)."""
    root_first = LinkResolver(["Note.md", "b/Note.md", "b/Home.md"], [])
    assert resolve(root_first, "Note", source="b/Home.md").target_path == "Note.md"
    assert resolve(root_first, "b/Note", source="Home.md").target_path == "b/Note.md"
    shorter = LinkResolver(["Archive/Note.md", "a/b/Note.md", "c/Home.md"], [])
    assert resolve(shorter, "Note", source="c/Home.md").target_path == "a/b/Note.md"


def test_names_compare_in_nfc_whatever_form_the_file_has_on_disk():
    """macOS writes file names decomposed (NFD); a person types them composed (NFC)."""
    nfd = unicodedata.normalize("NFD", "Café notes.md")
    resolver = LinkResolver([nfd, "Übersicht.md"], [unicodedata.normalize("NFD", "img/Grüße.png")])
    for target in ("Café notes", "café notes", "CAFÉ NOTES.md"):
        assert resolve(resolver, target).target_path == nfd
    assert resolve(resolver, "Café notes.md", style="markdown").target_path == nfd
    assert resolve(resolver, unicodedata.normalize("NFD", "übersicht")).target_path == "Übersicht.md"
    assert resolve(resolver, "Grüße.png").target_path == unicodedata.normalize("NFD", "img/Grüße.png")
    assert target_key(nfd) == target_key("café notes") == "café notes"


def test_aliases_do_not_resolve_links(make_vault):
    root = make_vault({"Real Name.md": "---\naliases: [Nickname]\n---\nbody",
                       "Home.md": "[[Nickname]] and [[Real Name]]"})
    config = parse_config(root, {})
    notes = {p: parse_note(p, (root / p).read_text(), config) for p in ("Real Name.md", "Home.md")}
    resolver = LinkResolver(notes)
    results = [resolver.resolve(link, "Home.md").target_path for link in notes["Home.md"].links]
    assert results == [None, "Real Name.md"]


def test_target_key_is_the_casefolded_last_component():
    assert target_key("Folder/My Note.md") == "my note"
    assert target_key("diagram.PNG") == "diagram.png"
    assert target_key("") == ""


def parsed_corpus(root: Path) -> tuple[dict, list[str]]:
    """Every note of a real vault parsed (``.obsidian/`` left out), and its other files."""
    config = parse_config(root, {})
    notes, attachments = {}, []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".obsidian"]
        for name in files:
            rel = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
            if name.endswith(".md"):
                notes[rel] = parse_note(rel, (root / rel).read_text(encoding="utf-8"), config)
            else:
                attachments.append(rel)
    return notes, attachments


def test_real_obsidian_vault_matches_the_corpus_facts():
    """obsidian-tasks-docs: the corpus README gives facts from an independent resolver.

    Agreements: 28 embeds, 2 attachment links, 18 links that resolve only case-insensitively.
    Our extraction follows CommonMark blocks (markdown-it) to decide what is code, and finds
    1,136 wikilinks outside code, all resolving (128 to the same note). The corpus README
    counts 1,112 with 3 unresolved `yaml_all_property_types_*` links; those three sit inside
    a ```yaml fence and inline code spans in our reading (and Obsidian's), so they are not
    links here. The pinned numbers below fail on any regression either way.
    """
    root = needs_corpus("obsidian-tasks-docs")
    notes, attachments = parsed_corpus(root)
    resolver = LinkResolver(notes, attachments)
    wiki = [(path, link) for path, note in notes.items() for link in note.links if link.style == "wiki"]
    resolved = [(p, link, resolver.resolve(link, p)) for p, link in wiki]
    embeds = sum(1 for _, link in wiki if link.embed)
    same_note = sum(1 for _, link, r in resolved if not link.target and r.target_path)
    to_attachments = sum(1 for _, _, r in resolved if r.target_path and not r.target_path.endswith(".md"))
    case_only = sum(1 for _, link, r in resolved if link.target and r.target_path and r.target_path.endswith(".md")
                    and r.target_path.rsplit("/", 1)[-1][:-3] != link.target.rsplit("/", 1)[-1].removesuffix(".md"))
    unresolved = [link.raw for _, link, r in resolved if r.target_path is None]
    assert (len(wiki), embeds, same_note, to_attachments, case_only) == (1136, 28, 128, 2, 18)
    assert unresolved == []
    assert not any("yaml_all_property_types" in link.raw for _, link in wiki)


def test_wikilinks_in_properties_are_links_of_the_note_with_their_line():
    text = ('---\ncategories:\n  - "[[Books]]"\nup: "[[Reading#2024|this year]]"\n# old: "[[Commented]]"\n'
            'source: "[text](not-a-link.md)"\n---\nBody [[Shelf]]\n')
    note = parse_note("Books/Dune.md", text, parse_config(Path("/v"), {}))
    assert [(link.target, link.subpath, link.display, link.line) for link in note.links] == [
        ("Books", None, None, 3), ("Reading", "2024", "this year", 4), ("Shelf", None, None, 8)]


def test_kepanos_vault_matches_the_corpus_facts():
    """kepano-obsidian: the corpus README counts 209 wikilinks, 134 of them in YAML properties
    (list items such as ``"[[Books]]"`` under ``categories:``): 85 resolve to a note, 62 to an
    attachment (61 ``.base`` embeds and an image), 62 to nothing, on purpose (the notes a
    template vault leaves to its user). Its templates' ``{{date}}`` values are blanks, not
    YAML errors."""
    root = needs_corpus("kepano-obsidian")
    notes, attachments = parsed_corpus(root)
    resolver = LinkResolver(notes, attachments)
    targets = [resolver.resolve(link, path).target_path for path, note in notes.items() for link in note.links]
    to_notes = sum(1 for t in targets if t and t.endswith(".md"))
    assert (len(targets), to_notes, sum(1 for t in targets if t) - to_notes, targets.count(None)) == (209, 85, 62, 62)
    assert [path for path, note in notes.items() if note.yaml_error] == []


def test_a_code_span_inside_a_wikilink_is_part_of_its_target():
    """[[Headings#The `foo()` call]] was read as "The         call", and flagged as a missing
    heading (qa27 F5); a wikilink inside a code span is still code."""
    body = "see [[Headings#The `foo()` call]] and `[[not a link]]` ok"
    links = extract_links(mask_code(body, []))
    assert [link.raw for link in links] == ["[[Headings#The `foo()` call]]"]


def test_a_markdown_links_destination_may_hold_balanced_parentheses():
    """CommonMark allows them: "Target.md#Pour-over%20(V60)" was cut at its first ")" (qa29 N9)."""
    body = "[pour](Target.md#Pour-over%20(V60)) and [b](x.md) (see [c](y.md))"
    assert [link.raw for link in extract_links(mask_code(body, []))] == [
        "[pour](Target.md#Pour-over%20(V60))", "[b](x.md)", "[c](y.md)"]


def test_a_markdown_link_whose_text_wraps_is_a_link_on_one_line():
    """16 of the KEPs' links wrap their text or title, CommonMark's way: neither listed nor counted
    as unresolved (qa104; status now counts the corpus README's 87). A blank line still ends the text."""
    body = ('![A graph showing restarts with the\n   proposed minimum](./restarts.png "KEP-4603\ncomparison") and [see\n'
            'below](#return-a-project-id).\n\n[not a\n\nlink](b.md)')
    links = extract_links(body, 10)
    assert [(link.raw, link.target, link.subpath, link.display, link.line) for link in links] == [
        ('![A graph showing restarts with the proposed minimum](./restarts.png "KEP-4603 comparison")', "./restarts.png",
         None, "A graph showing restarts with the proposed minimum", 10),
        ("[see below](#return-a-project-id)", "", "return-a-project-id", "see below", 12)]
