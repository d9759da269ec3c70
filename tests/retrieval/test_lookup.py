"""Finding the note and section a ref names (vault_engine/retrieval/lookup.py)."""

import unicodedata

import pytest

from vault_engine.errors import UnknownRef
from vault_engine.vault import Vault


def test_a_note_named_in_nfd_is_found_by_its_name_typed_in_nfc(make_vault):
    nfd = unicodedata.normalize("NFD", "Café notes.md")
    root = make_vault({nfd: "# Café\n## Menu\ntext\n", "Home.md": "[[Café notes#Menu]]\n"})
    with Vault(root) as vault:
        vault.index(embed=False)
        assert vault.show("Café notes.md").path == nfd  # the file keeps its own name
        assert vault.show("CAFÉ NOTES#Menu").heading == "Menu"
        assert [link.source for link in vault.links("café notes.md", backlinks=True)] == ["Home.md"]
        with pytest.raises(UnknownRef, match="no note 'Cafe notes.md'"):
            vault.show("Cafe notes.md")


def test_a_markdown_links_anchor_written_as_a_url_names_its_heading(make_vault):
    """data-engineering-wiki writes [Concurrent Batch Processing](#Concurrent+Batch+Processing);
    KEP tables of contents link `### Integration with [Cluster Autoscaler](https://...)` as
    #integration-with-cluster-autoscaler (GitHub slugs the rendered text): "no such heading"."""
    root = make_vault({"Batch.md": "# Batch\n[a](#Concurrent+Batch+Processing) [b](#concurrent-batch-processing) "
                                   "[c](#Concurrent%20Batch%20Processing) [d](#concurrent-batch)\n"
                                   "### Concurrent Batch Processing\nx\n",
                       "kep.md": "# KEP\n- [x](#integration-with-cluster-autoscaler) [y](#use-without-it)\n"
                                 "### Integration with [Cluster Autoscaler](https://github.com/k/autoscaler)\nx\n"
                                 "### Use _without_ it\ny\n"})
    with Vault(root) as vault:
        vault.index(embed=False)
        links = vault.links("Batch.md")
        assert [link.section_missing for link in links] == [False, False, False, True]
        for link in links[:3]:  # the printed ref opens
            assert link.ref is not None and vault.show(link.ref).heading == "Concurrent Batch Processing"
        assert [link.section_missing for link in vault.links("kep.md")] == [False, False]
        shown = vault.show("kep.md#Integration with Cluster Autoscaler")  # the heading as a reader reads it
        assert shown.heading == "Integration with [Cluster Autoscaler](https://github.com/k/autoscaler)"


def test_a_heading_that_is_a_wikilink_opens_by_its_display_text(make_vault):
    """`#### [[Batch Data Processing|Batch Ingestion]]` opened by its raw text only, where a
    Markdown link's heading opened by its text (qa52)."""
    root = make_vault({"ing.md": "# Ingestion\n#### [[Batch Data Processing|Batch Ingestion]]\nnightly\n"
                                 "#### [[Stream Data Processing]]\nlive\n"})
    with Vault(root) as vault:
        vault.index(embed=False)
        assert vault.show("ing.md#Batch Ingestion").text.endswith("nightly")
        assert vault.show("ing.md#Stream Data Processing").text.endswith("live")


def test_a_missing_heading_lists_the_folded_headings_that_open_too(make_vault):
    # `#Ingredients` (folded into `#Pastry`) opened but was not among the headings named
    root = make_vault({"t.md": "# Tart\n## Ingredients\n### Pastry\nflour\n## Filling\neggs\n"})
    with Vault(root) as vault:
        vault.index(embed=False)
        with pytest.raises(UnknownRef, match="its headings: 'Tart', 'Ingredients', 'Pastry', 'Filling'$"):
            vault.show("t.md#Nope")
        shown = vault.show("t.md#Ingredients")  # opened at the heading asked for, not at Pastry (qa83)
        assert (shown.heading, shown.text, shown.ref) == ("Ingredients", "## Ingredients\n### Pastry\nflour",
                                                          "t.md#Ingredients")


def test_a_repeated_heading_names_its_first_even_folded_over_a_subheading(make_vault):
    """`[[T#Beta]]` opens the first `## Beta`, as Obsidian does; with only a `### Sub` under it,
    the second had opened, in `show` and for every link followed (qa175)."""
    root = make_vault({"T.md": "## Beta\n### Sub\nfirst beta text\n## Beta\nsecond beta text\n",
                       "S.md": "see [[T#Beta]]\n"})
    with Vault(root) as vault:
        vault.index(embed=False)
        shown = vault.show("T.md#Beta")
        assert (shown.line_start, "first beta text" in shown.text, "second" in shown.text) == (1, True, False)


def test_a_heading_folded_over_its_subheading_shows_down_to_the_next_of_its_level(make_vault):
    """`## Alpha` straight over `### One` showed from the note's first line through `## Beta`
    (itself folded over `### Three`), and a journal's first day ran to the journal's end (qa83)."""
    root = make_vault({"n.md": "# Title\n## Alpha\n### One\nalpha one\n### Two\nalpha two\n## Beta\n### Three\n"
                               "beta three\n## Gamma\ngamma\n",
                       "j.md": "# Journal\n## 2010-01-01\n### Morning\nrun\n### Evening\nread\n"
                               "## 2010-01-02\n### Morning\nswim\n"})
    with Vault(root) as vault:
        vault.index(embed=False)
        expected = {"n.md#Alpha": ("n.md#Alpha", 2, 6), "n.md#One": ("n.md#One", 3, 4),
                    "n.md#Beta": ("n.md#Beta", 7, 9), "n.md#Title": ("n.md#Title", 1, 11),
                    "j.md#2010-01-01": ("j.md#2010-01-01", 2, 6), "j.md#2010-01-02": ("j.md#2010-01-02", 7, 9)}
        for ref, (shown, first, last) in expected.items():
            view = vault.show(ref)
            assert (view.ref, view.line_start, view.line_end) == (shown, first, last), ref
            assert view.text.split("\n")[0].lstrip("#").strip() == shown.split("#")[1]


def test_a_link_is_flagged_once_the_heading_it_names_is_renamed(make_vault):
    """Checked when asked, against the target as indexed now: no re-index of the linking note."""
    root = make_vault({"a.md": "# A\n## Setup\nx\n", "b.md": "see [[a#Setup]]\n"})
    with Vault(root) as vault:
        vault.index(embed=False)
        assert [link.section_missing for link in vault.links("b.md")] == [False]
        (root / "a.md").write_text("# A\n## Installation\nx\n")
        vault.index(embed=False)
        assert [link.section_missing for link in vault.links("b.md")] == [True]


def test_a_github_anchor_names_a_repeated_or_folded_heading(make_vault):
    """A KEP's table of contents: [Graduation Criteria](#graduation-criteria-1) is the second one,
    and an empty heading folded into the section under it is still linked."""
    root = make_vault({"kep.md": "# KEP\n## Design\n### Graduation Criteria\none\n"
                                 "## Production Readiness\n### Enablement\nx\n## Graduation Criteria\ntwo\n"})
    with Vault(root) as vault:
        vault.index(embed=False)
        assert vault.show("kep.md#graduation-criteria-1").text.endswith("two")
        assert vault.show("kep.md#graduation-criteria").text.endswith("one")
        assert vault.show("kep.md#production-readiness").heading == "Enablement"


def test_a_table_of_contents_reads_each_heading_of_its_note_once_not_once_a_link(make_vault, monkeypatch):
    """A KEP links each of its headings from its table of contents: normalizing every heading
    again for each link took `status` 4.9 s and `links --all` 4.6 s on 62 KEPs (qa61)."""
    from vault_engine.retrieval import lookup

    headings = [f"Part {n} of the design" for n in range(60)]
    toc = "".join(f"- [{h}](#{h.lower().replace(' ', '-')})\n" for h in headings)
    body = "".join(f"## {h}\nText {n}.\n" for n, h in enumerate(headings))
    with Vault(make_vault({"kep.md": f"# KEP\n{toc}\n- [gone](#no-such-part)\n{body}"})) as v:
        v.index(embed=False)
        calls = []
        real = lookup.normalize_heading
        monkeypatch.setattr(lookup, "normalize_heading", lambda text: calls.append(text) or real(text))
        links = v.links("kep.md")
    assert [link.section_missing for link in links] == [False] * 60 + [True]
    assert len(calls) < 10 * len(headings)  # (once a link: 60 links x 62 sections x 3 readings)


def test_a_heading_is_shown_with_its_subsections_as_obsidian_embeds_it(make_vault):
    """`show "Batch Data Processing.md#Batch Data Processing Advantages"` gave its first of three
    subsections' parent alone, with nothing to say the rest were there (qa72)."""
    root = make_vault({"b.md": "# Batch\nIntro.\n## Advantages\nThree.\n\n### Efficiency\nfast\n\n### Simplicity\nplain\n"
                               "## Drawbacks\nlate\n"})
    with Vault(root) as vault:
        vault.index(embed=False)
        shown = vault.show("b.md#Advantages")
        assert shown.text == "## Advantages\nThree.\n\n### Efficiency\nfast\n\n### Simplicity\nplain"
        assert (shown.line_start, shown.line_end) == (3, 10)  # the lines of the file, blank ones included
        assert vault.show("b.md#Simplicity").text == "### Simplicity\nplain"
        assert vault.show("b.md#Drawbacks").text == "## Drawbacks\nlate"


def test_a_heading_path_names_its_headings_in_order_or_nothing(make_vault):
    """`[[Target#Bogus#Sub]]` and `show "Target.md#Beta#Status"` found a "Sub" and a "Status"
    under other headings, where Obsidian finds none (qa72); a path may skip a level."""
    root = make_vault({"t.md": "# T\nt\n## Alpha\n### Sub\nx\n## Beta\ny\n## Part\np\n### Inner\ni\n#### Status\nz\n",
                       "links.md": "[[t#Bogus#Sub]] [[t#Alpha#Sub]] [[t#Part#Status]] [[t#Beta#Status]]\n"})
    with Vault(root) as vault:
        vault.index(embed=False)
        assert [link.section_missing for link in vault.links("links.md")] == [True, False, False, True]
        assert vault.show("t.md#Part#Status").text == "#### Status\nz"
        with pytest.raises(UnknownRef, match="t.md has no heading 'Beta#Status'"):
            vault.show("t.md#Beta#Status")


def test_a_missing_heading_names_a_repeated_one_by_the_ref_that_opens_it(make_vault):
    """"its headings: 'Status', 'Part Two', 'Status'" told the two apart nowhere (qa72)."""
    root = make_vault({"t.md": "# T\nt\n## One\no\n### Status\na\n## Two\nw\n### Status\nb\n"})
    with Vault(root) as vault:
        vault.index(embed=False)
        with pytest.raises(UnknownRef) as missing:
            vault.show("t.md#Nope")
        named = str(missing.value).split("its headings: ")[1].split(", ")
        assert named == ["'T'", "'One'", "'One#Status'", "'Two'", "'Two#Status'"]
        assert [vault.show(f"t.md#{name.strip(chr(39))}").text[-1] for name in named[2::2]] == ["a", "b"]


def test_an_empty_heading_folded_over_its_first_subsection_is_shown_with_all_of_them(make_vault):
    """`# Chapter` over `## First` and `## Second` gave First alone: the empty heading is folded
    into the section under it, whose level set where the text ended (qa78)."""
    root = make_vault({"f.md": "# Fold\nintro.\n# Chapter\n## First\nfirst text.\n## Second\nsecond text.\n"
                               "# Next chapter\nnext.\n"})
    with Vault(root) as vault:
        vault.index(embed=False)
        assert vault.show("f.md#Chapter").text == "# Chapter\n## First\nfirst text.\n## Second\nsecond text."
        assert vault.show("f.md#First").text == "## First\nfirst text."  # its own level: First alone, from it


def test_a_ref_ending_in_a_hash_opens_the_span_of_the_ref_it_names(make_vault):
    """`#Decision#` came back as `#Decision` but opened at the note's title folded in front
    of it, two lines above where `#Decision` opens (qa157)."""
    root = make_vault({"a.md": "# Auth\n\n## Decision\nKeep sessions.\n## Status\nok\n"})
    with Vault(root) as vault:
        vault.index(embed=False)
        plain, trailing = vault.show("a.md#Decision"), vault.show("a.md#Decision#")
    assert (trailing.ref, trailing.line_start, trailing.text) == (plain.ref, plain.line_start, plain.text) \
        == ("a.md#Decision", 3, "## Decision\nKeep sessions.")


def test_a_path_missing_a_folder_suggests_the_notes_under_the_folders_typed_first(make_vault):
    """`keps/sig-node/README.md` suggested three KEPs of sig-api-machinery "and 59 more": the
    notes of that name were listed in the index's order (qa157)."""
    from vault_engine.errors import UnknownRef

    root = make_vault({f"keps/{sig}/{n}-kep/README.md": f"# KEP {n}\n" for sig, n in
                       (("sig-api", 1), ("sig-api", 2), ("sig-apps", 3), ("sig-node", 4), ("sig-node", 5))})
    with Vault(root) as vault:
        vault.index(embed=False)
        with pytest.raises(UnknownRef) as missed:
            vault.show("keps/sig-node/README.md")
        with pytest.raises(UnknownRef) as first_left_out:  # its first folder left out (qa161)
            vault.show("sig-node/README.md")
    assert "did you mean keps/sig-node/4-kep/README.md, keps/sig-node/5-kep/README.md, keps/sig-api/1-kep/README.md " \
           "and 2 more?" in str(missed.value)
    assert "did you mean keps/sig-node/4-kep/README.md, keps/sig-node/5-kep/README.md," in str(first_left_out.value)
