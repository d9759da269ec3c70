"""Whole-note parsing: kind, project, title, tags, dates (vault_engine/parsing/note.py, tags.py)."""

from pathlib import Path

from vault_engine.config import parse_config
from vault_engine.parsing.note import parse_note
from vault_engine.parsing.tags import collect_tags

CONFIG = parse_config(Path("."), {})


def test_kind_from_frontmatter_then_folder_then_note():
    assert parse_note("x.md", "---\ntype: spec\n---\n", CONFIG).kind == "spec"
    assert parse_note("x.md", "---\ntype: Working Note\n---\n", CONFIG).kind == "working-note"
    assert parse_note("projects/p/checkpoints/1.md", "", CONFIG).kind == "checkpoint"
    assert parse_note("projects/p/working/a.md", "", CONFIG).kind == "working-note"
    assert parse_note("memory/m.md", "", CONFIG).kind == "memory"
    assert parse_note("notion/P abc.md", "", CONFIG).kind == "notion"
    assert parse_note("elsewhere/x.md", "---\ntype: banana\n---\n", CONFIG).kind == "note"


def test_a_folder_rule_adds_to_the_built_in_ones_and_may_take_one_of_their_folders():
    """`[kinds] decision = ["rfcs/**"]` had replaced every built-in decision folder (qa87)."""
    config = parse_config(Path("."), {"kinds": {"decision": ["rfcs/**"], "spec": ["docs/rfc/**"]}})
    assert parse_note("rfcs/1.md", "", config).kind == "decision"
    assert parse_note("decisions/0001-x.md", "", config).kind == "decision"  # still a built-in folder
    assert parse_note("docs/rfc/1.md", "", config).kind == "spec"
    assert parse_note("specs/a.md", "", config).kind == "spec"
    taken = parse_config(Path("."), {"kinds": {"note": ["specs/**"]}})
    assert parse_note("specs/a.md", "", taken).kind == "note"  # a vault's rule comes first


def test_project_from_frontmatter_then_folder():
    assert parse_note("projects/drone/working/a.md", "", CONFIG).project == "drone"
    assert parse_note("projects/drone/working/a.md", "---\nproject: other\n---\n", CONFIG).project == "other"
    assert parse_note("specs/a.md", "", CONFIG).project is None
    assert parse_note("projects/loose.md", "", CONFIG).project is None


def test_title_date_and_crlf():
    note = parse_note("dir/My Note.md", "---\ncreated: 2026-01-01\nupdated: 2026-02-01\n---\r\n# H\r\ntext\r\n", CONFIG)
    assert note.title == "My Note"
    assert note.doc_time == 1769904000.0  # updated wins over created
    assert note.sections[0].text == "# H\ntext"
    assert parse_note("a.md", "---\ntitle: Shown\n---\n", CONFIG).title == "Shown"


def test_a_folders_page_is_titled_by_its_first_heading_else_its_folder():
    """Every KEP (keps/sig-x/1880-name/README.md) was titled "README" in its hits and windows."""
    kep = parse_note("keps/sig-network/1880-cidrs/README.md", "<!-- toc -->\n# KEP-1880: [Multiple](x.md) CIDRs\n"
                     "## Summary\ntext\n", CONFIG)
    assert kep.title == "KEP-1880: Multiple CIDRs"
    assert parse_note("docs/setup/index.md", "## Only a subheading\ntext\n", CONFIG).title == "setup"
    assert parse_note("README.md", "text\n", CONFIG).title == "README"  # no folder to name it by
    assert parse_note("a/README.md", "---\ntitle: Given\n---\n# H\n", CONFIG).title == "Given"
    assert parse_note("a/Notes.md", "# Other\n", CONFIG).title == "Notes"  # a note's name is its title


def test_tags_inline_nested_frontmatter_not_in_code_or_headings():
    note = parse_note("a.md", "---\ntags: [Alpha, '#beta']\n---\n# Heading\ntext #gamma and #area/audio\n"
                              "`#incode` [[Note#anchor]] #123 x#notatag\n```\n#fenced\n```\n", CONFIG)
    assert note.tags == ("alpha", "beta", "gamma", "area/audio")


def test_collect_tags_dedupes_case_insensitively():
    assert collect_tags({"tags": "One two"}, "#ONE #three") == ("one", "two", "three")


def test_an_inline_tag_is_read_whole_however_its_accents_are_written():
    """#Ko\u0308lnoffice (the accent a mark of its own) was stored as "ko", and a soft hyphen
    ended "#micro\u00adphonearray" at "micro" (qa128)."""
    assert collect_tags({}, "#Ko\u0308lnoffice #micro\u00adphonearray") == ("k\u00f6lnoffice", "microphonearray")


def test_a_tags_key_in_any_case_holds_tags_as_in_obsidian():
    assert collect_tags({"Tags": ["seedling"], "TAG": "x", "tagged": "no"}, "") == ("seedling", "x")


def test_a_kind_typo_or_an_unreadable_date_is_reported_not_silently_dropped():
    config = CONFIG
    typo = parse_note("a.md", "---\ntype: chekpoint\n---\n# A\n", config)
    assert (typo.kind, typo.yaml_error) == ("note", "type 'chekpoint' is not a kind (did you mean checkpoint?): "
                                                    "read as a note")
    kept = parse_note("projects/p/checkpoints/c.md", "---\ntype: chekpoint\n---\n# C\n", config)
    assert (kept.kind, kept.yaml_error) == ("checkpoint", "type 'chekpoint' is not a kind (did you mean checkpoint?): "
                                                          "read as a checkpoint by where it is kept")  # said "a note"
    assert parse_note("b.md", "---\ntype: book\n---\n# B\n", config).yaml_error is None  # someone else's field
    bad_date = parse_note("c.md", "---\ncreated: yesterday-ish\n---\n# C\n", config)
    assert bad_date.yaml_error.startswith("created 'yesterday-ish' is not a date") and bad_date.doc_time is None
    # a template's placeholder, quoted or Templater's, is a blank to fill, not a date written wrong (qa27 F7)
    for placeholder in ('"{{date:YYYY-MM-DD}}"', '<% tp.file.creation_date("YYYY-MM-DD") %>', "'{{date}}'"):
        template = parse_note("templates/t.md", f"---\ncreated: {placeholder}\n---\n# T\n", config)
        assert (template.yaml_error, template.doc_time) == (None, None)


def test_every_frontmatter_slip_of_a_note_is_reported_not_only_the_first():
    both = parse_note("d.md", "---\ntype: chekpoint\ncreated: yesterday-ish\nupdated: soon\n---\n# Typo\nbody\n",
                      CONFIG)
    assert both.yaml_error == ("type 'chekpoint' is not a kind (did you mean checkpoint?): read as a note; "
                               "updated 'soon' is not a date (write 2026-03-14 or 2026-03-14T10:22:00Z): "
                               "ignored; created 'yesterday-ish' is not a date (write 2026-03-14 or "
                               "2026-03-14T10:22:00Z): ignored")


def test_a_list_or_mapping_where_one_value_is_read_is_a_slip_not_ignored_without_a_word():
    note = parse_note("f.md", "---\ntitle: [a, b]\nproject: {x: 1}\ncreated: [2026-01-01]\n---\n# F\nbody\n", CONFIG)
    assert note.yaml_error == ("project is a mapping where one value is read (write project: value): ignored; "
                               "title is a list where one value is read (write title: value): ignored; "
                               "created is a list where one value is read (write created: value): ignored")
    assert (note.title, note.project) == ("f", None)
    blank = parse_note("g.md", "---\ntype: []\ntitle: []\ncreated: []\n---\n# G\n", CONFIG)  # kepano's templates
    assert blank.yaml_error is None


def test_a_key_written_twice_is_listed_and_its_last_value_read():
    """Obsidian refuses such a block; it was read without a word."""
    note = parse_note("h.md", "---\ntitle: One\ntype: chekpoint\ntitle: Two\n---\n# H\n", CONFIG)
    assert note.title == "Two"
    assert note.yaml_error == ("'title' is written twice (line 4): the last value is read; remove the other; "
                               "type 'chekpoint' is not a kind (did you mean checkpoint?): read as a note")


def test_an_impossible_date_is_ignored_and_listed_like_any_unreadable_date():
    for value in ("2026-02-30", "2026-13-45", "2026-12-04T25:61:00Z", "2026-12-04 10:00:00 +99:00"):
        note = parse_note("e.md", f"---\ncreated: {value}\ndue: {value}\n---\n# E\nbody\n", CONFIG)
        assert note.yaml_error == (f"created {value!r} is not a date (write 2026-03-14 or "
                                   "2026-03-14T10:22:00Z): ignored")
        assert note.doc_time is None and note.meta["due"] == value and note.sections[0].text == "# E\nbody"


def test_a_lone_cr_is_a_line_break_as_in_obsidian():
    mac = parse_note("m.md", "---\rtitle: CR note\r---\r# A\r## B\rlemurword text\r", CONFIG)
    unix = parse_note("m.md", "---\ntitle: CR note\n---\n# A\n## B\nlemurword text\n", CONFIG)
    assert (mac.title, mac.yaml_error, mac.sections) == ("CR note", None, unix.sections)


def test_git_conflict_markers_left_in_a_note_are_said():
    # a merge not resolved: `=======` became a heading and a ruling's reason ended in ">>>>>>> 4bde98" (qa25 #4)
    config = parse_config(Path("/vault"), {})
    text = ("# Spec\nintro\n<<<<<<< HEAD\nEach node keeps an LFU cache.\n=======\nEach node keeps an LRU cache.\n"
            ">>>>>>> 9812018d\n")
    note = parse_note("specs/cache.md", text, config)
    assert note.yaml_error == ("unresolved git conflict markers from line 3: both sides are indexed as "
                               "written, the marker lines as blank ones; resolve the merge")
    assert [s.heading for s in note.sections] == ["Spec"]  # "=======" no setext underline of ours (qa92)
    assert "Each node keeps an LFU cache.\n\nEach node keeps an LRU cache." in note.sections[0].text
    setext = parse_note("specs/ok.md", "Title\n=======\nbody\n", config)  # a heading underline alone: no conflict
    assert setext.yaml_error is None


def test_conflict_marker_lines_are_no_part_of_a_ruling_or_a_chosen_design():
    """A marker stuck to the item before it ("Foam windscreens <<<<<<< HEAD") or ended a reason
    ("leaked once >>>>>>> 6bba60f"), in `deadend list`, `resume` and the hook (qa90)."""
    text = ("---\ntype: checkpoint\nproject: p\nagent: a\ncreated: 2026-11-25T09:00:00Z\n---\n# C\n"
            "## Decision\n<<<<<<< HEAD\nSign webhooks with per-tenant keys.\n=======\nSign webhooks with HMAC.\n"
            ">>>>>>> 6bba60f3\n## Failed\n- Foam windscreens on the arm-mounted microphones\n<<<<<<< HEAD\n"
            "- Sign webhooks with a shared static secret -- leaked once in a support ticket\n=======\n"
            "- Cache invoices in memcached -- evictions lost drafts\n>>>>>>> 6bba60f3\n")
    note = parse_note("projects/p/checkpoints/c.md", text, parse_config(Path("/vault"), {}))
    assert [(d.text, d.reason) for d in note.dead_ends] == [
        ("Foam windscreens on the arm-mounted microphones", None),
        ("Sign webhooks with a shared static secret", "leaked once in a support ticket"),
        ("Cache invoices in memcached", "evictions lost drafts")]
    assert [a.text for a in note.accepted] == ["Sign webhooks with per-tenant keys.", "Sign webhooks with HMAC."]
    assert "unresolved git conflict markers from line 9" in note.yaml_error  # still said
    assert [d.line for d in note.dead_ends][1] == 17  # lines keep their numbers


def test_what_a_comment_hides_is_no_ruling_link_tag_or_heading():
    """A ruling an author commented out had still been raised, a template's hidden example was
    a ruling and its hidden link an unresolved one; a `%%` in a code span had hidden a note's
    links, tags and headings (qa151)."""
    checkpoint = parse_note("projects/pay/checkpoints/20261201T100000Z-claude.md", (
        "## Failed\n- Synchronous retries -- timeouts at the gateway\n%% reverted: works with the new SDK\n"
        "- Idempotency keys in Redis -- evicted under load\n%%\n<!-- the format:\n- APPROACH -- REASON\n-->\n"), CONFIG)
    assert [(d.text, d.reason) for d in checkpoint.dead_ends] == [("Synchronous retries", "timeouts at the gateway")]
    working = parse_note("projects/pay/working/claude-webhooks.md", (
        "## Ruled out\n<!--\nDEADEND: approach -- reason\n[here](/keps/NNNN-kep-template/README.md)\n-->\n"
        "%%\nDEADEND: Poll the provider every second -- rate limited\n%%\n"
        "DEADEND: Retry inside the request handler -- side effects ran twice\n"), CONFIG)
    assert [d.text for d in working.dead_ends] == ["Retry inside the request handler"]
    assert working.links == ()
    printf = parse_note("printf-notes.md", (
        "# printf notes\n\nIn a format string write `%%` to print one percent sign.\n\n"
        "See [[Formatting guide]] for the rest. #printf\n\n## Escaping in SQL\n\n"
        "LIKE patterns use `%` as the wildcard; in Python's DB-API write `%%` instead.\n"), CONFIG)
    assert [link.target for link in printf.links] == ["Formatting guide"] and printf.tags == ("printf",)
    assert [s.heading for s in printf.sections][-1] == "Escaping in SQL"


def test_a_project_yaml_reads_as_a_number_is_a_slip_not_a_silent_loss():
    """`project: 3.10` is the number 3.1 to YAML 1.2: the note had no project and nothing said so (qa152)."""
    note = parse_note("notes/a.md", "---\nproject: 3.10\n---\n# A\n", CONFIG)
    assert note.project is None
    assert note.yaml_error == ("project 3.1 is a number to YAML, not a name: write it in quotes (project: '...') "
                               "for it to be read")
    assert parse_note("notes/a.md", "---\nproject: '3.10'\n---\n# A\n", CONFIG).project == "3.10"
    truth = parse_note("notes/a.md", "---\nproject: true\n---\n# A\n", CONFIG)  # had been project "True" (qa155)
    assert truth.project is None and truth.yaml_error.startswith("project True is true or false to YAML")
