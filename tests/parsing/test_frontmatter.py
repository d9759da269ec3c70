"""Frontmatter (vault_engine/parsing/frontmatter.py)."""

import datetime as dt

import pytest

from vault_engine.parsing.frontmatter import as_list, normalize_value, parse_time, split_frontmatter


def test_values_are_normalized_and_the_body_line_is_known():
    fm = split_frontmatter("---\ncreated: 2026-03-14T10:22:00Z\nday: 2026-03-01\ntags: [a, b]\nn: 3\n---\n# Body\n")
    assert fm.meta == {"created": "2026-03-14T10:22:00Z", "day": "2026-03-01", "tags": ["a", "b"], "n": 3}
    assert fm.body == "# Body\n"
    assert fm.body_line == 7
    assert fm.error is None


def test_broken_yaml_keeps_the_body_and_reports_the_line():
    fm = split_frontmatter("---\ntitle: ok\nbad: [unclosed\nnext: 1\n---\nbody text\n")
    assert fm.meta == {}
    assert fm.body == "body text\n"
    assert fm.error.startswith("invalid YAML frontmatter at line 3:")  # where the "[" opens


@pytest.mark.parametrize("block, line", [
    ('title: "Notes from Dana\nproject: pay\ntype: working-note\n', 2),  # had said line 4, the block's end
    ("title: a\nproject pay\nkey: x\n", 3),  # had said 4, the line after the key without its ":"
])
def test_a_yaml_error_names_the_line_to_fix(block, line):
    """YAML finds an unclosed quote where the block ends (qa140)."""
    assert split_frontmatter(f"---\n{block}---\nbody\n").error.startswith(f"invalid YAML frontmatter at line {line}:")


@pytest.mark.parametrize("block, said", [
    ("title: a\n\tkey: b\n", "at line 3: found a tab character that violates indentation: indent with spaces, "
                              "not tabs; its properties are ignored until then"),
    ("title: Note: with a colon\n", 'at line 2: mapping values are not allowed in this context: put a value that '
                                    'holds ": " in quotes; its properties are ignored until then'),
    ("title: *important* note\n", 'at line 2: did not find expected alphabetic or numeric character: put a value '
                                  'that starts with "*" or "&" in quotes; its properties are ignored until then'),
    ("author: @alice\n", 'at line 2: found character that cannot start any token: put a value that starts with '
                         '"@", "`" or "%" in quotes; its properties are ignored until then'),
    # the same words for a tab before a list item, which the quotes advice misled about (qa83)
    ("tags:\n\t- a\n", "at line 3: found character that cannot start any token: indent with spaces, not tabs; "
                        "its properties are ignored until then"),
])
def test_a_yaml_error_says_what_to_do(block, said):
    """A tab was named without a word of what to do (qa70)."""
    assert split_frontmatter(f"---\n{block}---\nbody\n").error == f"invalid YAML frontmatter {said}"


def test_a_templates_placeholders_are_blanks_and_the_rest_of_its_frontmatter_is_read():
    # As kepano's vault writes its templates: YAML alone fails on "{{date}}" (a mapping as a key)
    template = ('---\ncategories:\n  - "[[Books]]"\ncreated: {{date}}\ntitle: {{title}} notes\n'
                'tags:\n  - {{tag}}\n  - to-read\nquoted: "{{kept}}"\n---\n# {{title}}\n')
    fm = split_frontmatter(template)
    assert fm.error is None
    assert fm.meta == {"categories": ["[[Books]]"], "created": None, "title": None,
                       "tags": [None, "to-read"], "quoted": None}  # quoted, a placeholder still (qa29 N4)
    assert as_list(fm.meta["tags"]) == ["to-read"]


def test_a_placeholder_does_not_hide_a_real_yaml_error():
    fm = split_frontmatter("---\ncreated: {{date}}\nbad: [unclosed\n---\nbody\n")
    assert fm.meta == {} and fm.error.startswith("invalid YAML frontmatter at line")


def test_frontmatter_that_is_not_a_mapping_is_an_error():
    fm = split_frontmatter("---\n- a\n- b\n---\nbody")
    assert fm.meta == {} and "not a mapping" in fm.error


def test_no_frontmatter_and_an_unclosed_fence():
    assert split_frontmatter("plain").meta == {}
    unclosed = split_frontmatter("---\nnot closed\n")
    assert (unclosed.meta, unclosed.body, unclosed.body_line) == ({}, "---\nnot closed\n", 1)


def test_parse_time_accepts_iso_dates_and_numbers():
    assert parse_time("2026-03-14T10:22:00Z") == dt.datetime(2026, 3, 14, 10, 22, tzinfo=dt.UTC).timestamp()
    assert parse_time("2026-03-14") == dt.datetime(2026, 3, 14, tzinfo=dt.UTC).timestamp()
    assert parse_time(1_763_107_200.5) == 1_763_107_200.5
    assert parse_time("yesterday") is None
    assert parse_time(True) is None
    # kubernetes-keps' sig-node/4214 kep.yaml: creation-date: 2023-9-18
    assert parse_time("2023-9-18") == dt.datetime(2023, 9, 18, tzinfo=dt.UTC).timestamp()
    assert parse_time("2023-13-1") is None
    # YAML's .inf and .nan: an OverflowError had stopped the index (qa70); past the year 9999,
    # ignored without a word (qa71)
    assert (parse_time(float("inf")), parse_time(float("-inf")), parse_time(float("nan"))) == (None, None, None)
    assert parse_time(99_999_999_999_999_999_999) is None


def test_a_date_yaml_reads_as_a_number_is_a_year_a_day_or_milliseconds():
    """`updated: 2026` was 33 minutes past 1970 and milliseconds the year 57840 (qa33 R3)."""
    assert parse_time(2026) == dt.datetime(2026, 1, 1, tzinfo=dt.UTC).timestamp()
    assert parse_time(20261114) == dt.datetime(2026, 11, 14, tzinfo=dt.UTC).timestamp()
    assert parse_time(20261399) is None  # no such day
    assert parse_time(1_763_107_200_000) == 1_763_107_200.0
    assert parse_time(1_763_107_200) == 1_763_107_200.0  # seconds stay seconds
    for no_date in (12, -5, 2026.5, 202611, 0, 19700101, 1975):  # 1970 for each: the note sank to the decay floor (qa34 N4)
        assert parse_time(no_date) is None


def test_normalize_value_and_as_list():
    assert normalize_value(dt.datetime(2026, 1, 2, 3, 4, 5)) == "2026-01-02T03:04:05Z"
    assert normalize_value({"k": (1, 2)}) == {"k": [1, 2]}
    assert as_list("a, b c") == ["a", "b", "c"]
    assert as_list(["x", None, " "]) == ["x"]


def test_property_words_are_text_values_and_what_links_name():
    from vault_engine.parsing.frontmatter import property_words

    meta = {"categories": ["[[Books]]"], "author": ["[[E. M. Forster]]"], "up": "[[Reading#2024|this year]]",
            "aliases": ["Machine novella"], "year": 1909, "created": "2023-09-12", "publish": False,
            "tags": ["to-read"], "title": "The Machine Stops", "nested": {"status": "draft"}, "empty": "",
            "notion_id": "b3b9507f2e174aa0b493fa337534c191", "parent_id": "104d4deadd2c807d", "body_hash": "e6e3ab40"}
    assert property_words(meta) == "Books E. M. Forster Reading this year Machine novella year 1909 draft"
    # a number is said with its name: "rating 7", not a bare 7 (qa52: kepano's films were found
    # by no search for their year or rating)
    assert property_words({"rating": 7, "score": 7.5, "runtime": [117, 118]}) == "rating 7 score 7.5 runtime 117 118"
    # a `type:` naming no kind is someone else's field (kepano's places); the kind itself is indexed already
    assert property_words({"type": ["[[Shrines]]"]}) == "Shrines" and property_words({"type": "book"}) == "book"
    assert property_words({"type": "checkpoint"}) == "" == property_words({"type": " Spec "})
    # where an imported Notion page came from is no word of it (qa50: the hit and snippet of
    # every empty page of import_test.zip); a note of the vault's own keeps its `source:`
    page = {"notion_id": "b3b9507f2e174aa0b493fa337534c191", "source": "import_test.zip",
            "url": "https://www.notion.so/b3b9507f", "Status": "In Progress"}
    assert property_words(page) == "In Progress"
    assert property_words({"source": "The Machine Stops, 1909"}) == "The Machine Stops, 1909"


def test_aliases_that_repeat_too_many_values_are_an_error_not_a_memory_exhaustion():
    levels = "".join(f"{c}: &{c} [{', '.join([f'*{p}'] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi"))
    bomb = split_frontmatter(f"---\na: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n{levels}tags: *i\n"
                             "---\n# Bomb\nbombword\n")  # 387 million values
    assert bomb.meta == {} and bomb.body == "# Bomb\nbombword\n"
    assert bomb.error == ("invalid YAML frontmatter: its aliases repeat over 10,000 values (an alias bomb?): "
                          "write the values out; its properties are ignored until then")
    assert split_frontmatter("---\na: &a [1, *a]\n---\nx\n").error == bomb.error  # contains itself: no end
    shared = split_frontmatter("---\na: &a [1, 2]\nb: *a\nc: [*a, *a]\n---\nx\n")
    assert shared.error is None and shared.meta["c"] == [[1, 2], [1, 2]]


def test_templaters_placeholders_are_blanks_too():
    """`project: "<% tp.system.prompt("project") %>"` became a project of its own (qa29 N4)."""
    fm = split_frontmatter('---\nproject: "<% tp.system.prompt(\\"project\\") %>"\ncreated: <% tp.date.now() %>\n'
                           'title: Real title\n---\nbody\n')
    assert (fm.error, fm.meta) == (None, {"project": None, "created": None, "title": "Real title"})


def test_properties_are_read_by_yaml_1_2_as_obsidian_reads_them():
    """PyYAML's YAML 1.1 had read `title: No` as false, `tags: [on, yes]` as two trues,
    `project: 0755` as 493 and `at: 10:30` as 630 (qa151)."""
    meta = split_frontmatter("---\ntitle: No\naliases: [Off]\ntags: [on, yes]\nproject: 0755\nat: 10:30\n"
                             "n: 42\nhex: 0x1F\noct: 0o17\nok: true\nshut: FALSE\nsize: 1_000\n---\nbody\n").meta
    assert meta == {"title": "No", "aliases": ["Off"], "tags": ["on", "yes"], "project": "0755", "at": "10:30",
                    "n": 42, "hex": 31, "oct": 15, "ok": True, "shut": False, "size": "1_000"}


def test_only_a_rule_closes_the_properties_as_in_obsidian():
    """YAML's `...` had closed them: a note opening with a rule lost its text to search (qa151)."""
    text = "---\nThe call went long: no time for the pgbouncer question\n...\n\n# Standup 12-03\n"
    found = split_frontmatter(text)
    assert found.meta == {} and "pgbouncer" in found.body
