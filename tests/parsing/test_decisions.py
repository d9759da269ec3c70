"""Decision records and accepted designs (vault_engine/parsing/decisions.py), through
parse_note as the indexer calls it."""

from pathlib import Path

from vault_engine.config import parse_config
from vault_engine.parsing.note import parse_note

CONFIG = parse_config(Path("/vault"), {})

MADR = """---
status: accepted
date: 2024-05-02
deciders: [Ana, Bo]
---
# Store chats

## Considered Options

* JSON
* [MVStore](https://www.h2database.com/html/mvstore.html)
* Custom format

## Decision Outcome

Chosen option: "MVStore", because it is simple and memory-efficient.

## Pros and Cons of the Options

### JSON

* Good, because widely used
* Bad, because too verbose

### Custom format

* Bad, because involves writing our own parser
"""

KEP = """# KEP-1: Eviction requests
## Summary
This KEP adds a declarative EvictionRequest API for cooperative pod termination.
## Proposal
The eviction request controller coordinates requesters and responders.
## Alternatives [optional]

### Pod API

Use pod conditions to signal the intent to evict between requester and responder.
More text that describes it.

### Grouped alternatives
#### Annotations on the pod
Encode the responders in annotations.

## Implementation History
- 2024: alpha
"""


def parse(path, text):
    return parse_note(path, text, CONFIG)


def test_madr_rejected_options_with_reasons_and_the_chosen_design():
    note = parse("decisions/0001-store-chats.md", MADR)
    assert note.kind == "decision"
    assert [(d.text, d.reason, d.source, d.agent) for d in note.dead_ends] == [
        ("JSON", "too verbose", "decision record", "Ana, Bo"),
        ("Custom format", "involves writing our own parser", "decision record", "Ana, Bo")]
    assert note.accepted[0].text == "MVStore, because it is simple and memory-efficient."
    assert note.dead_ends[0].line == 10  # the option's line in the file


def test_a_madr_record_is_a_decision_record_wherever_it_is_kept():
    for path in ("jabref/0001-store-chats.md", "docs/decisions/0001-store-chats.md", "0001-store-chats.md"):
        note = parse(path, MADR)
        assert note.kind == "decision", path
        assert [d.text for d in note.dead_ends] == ["JSON", "Custom format"]
    assert parse("doc/adr/0002-use-aws.md", "# 2. Use AWS\n## Status\nAccepted\n## Decision\nAWS.\n").kind == \
        "decision"  # adr-tools' folder
    assert parse("docs/architecture/decisions/0002-use-aws.md", "# 2. Use AWS\n## Decision\nAWS.\n").kind == \
        "decision"  # and its other common one
    assert parse("keps/sig-node/4563-eviction/README.md", KEP).kind == "decision"  # the KEP process's folder
    nygard = "# 2. Use AWS\n## Status\nAccepted\n## Context\nWe host.\n## Decision\nAWS.\n"
    assert parse("notes/0002-use-aws.md", nygard).kind == "note"  # a Decision heading alone says nothing
    declared = parse("notes/chats.md", MADR.replace("status: accepted", "type: note"))
    assert (declared.kind, declared.dead_ends) == ("note", ())  # what the author declared stands


def test_a_chosen_option_named_by_its_label_in_parentheses_is_not_a_dead_end():
    text = MADR.replace("* [MVStore](https://www.h2database.com/html/mvstore.html)",
                        "* Keep chats in an embedded key-value store (MVStore)")
    assert [d.text for d in parse("docs/adr/0001.md", text).dead_ends] == ["JSON", "Custom format"]


def test_a_chosen_option_the_outcome_words_differently_is_not_a_dead_end():
    # Real records: "Migrate to Picocli" for the option "Picocli"; other quotes; two options.
    cases = [('Chosen option: "Migrate to MVStore", because it is simple.', ["JSON", "Custom format"]),
             ("Chosen option: 'MVStore', because it is simple.", ["JSON", "Custom format"]),
             ('Chosen option: mix of "JSON" and "MVStore", because both.', ["Custom format"]),
             ('Chosen option: "Something else entirely", because none fit.', ["JSON", "MVStore", "Custom format"]),
             # jabref/0040: the option "The Preview panel of ...", chosen as "The PreviewPanel of ..."
             ('Chosen option: "MV-Store", because it is simple.', ["JSON", "Custom format"]),
             ('Chosen option: "Custom_Format", because it is ours.', ["JSON", "MVStore"])]
    for line, rulings in cases:
        text = MADR.replace('Chosen option: "MVStore", because it is simple and memory-efficient.', line).replace(
            "[MVStore](https://www.h2database.com/html/mvstore.html)", "MVStore")
        assert [d.text for d in parse("decisions/0001.md", text).dead_ends] == rulings, line


def test_an_option_that_only_starts_like_the_chosen_one_stays_a_dead_end():
    text = MADR.replace("* JSON\n", "* Open a dialog\n* Open a dialog if one file is imported\n").replace(
        "[MVStore](https://www.h2database.com/html/mvstore.html)", "MVStore").replace(
        'Chosen option: "MVStore"', 'Chosen option: "Open a dialog if one file is imported"')
    assert [d.text for d in parse("decisions/0001.md", text).dead_ends] == ["Open a dialog", "MVStore", "Custom format"]


def test_kep_alternatives_are_subsections_and_a_group_of_them_is_not_one():
    note = parse("decisions/kep-1.md", KEP)
    assert [d.text for d in note.dead_ends] == ["Pod API", "Annotations on the pod"]
    pod = note.dead_ends[0]
    assert pod.reason.startswith("Use pod conditions to signal the intent")
    assert pod.detail.startswith("Pod API. Use pod conditions")
    assert [a.text for a in note.accepted] == [
        "This KEP adds a declarative EvictionRequest API for cooperative pod termination.",
        "The eviction request controller coordinates requesters and responders."]


def test_an_alternatives_list_without_subsections_gives_one_dead_end_per_item():
    text = "# Spec\n## Decision\nKeep sessions in signed cookies.\n## Rejected alternatives\n" \
           "- **A shared Redis.** A failover logged everyone out.\n- Sticky sessions -- deploys replace pods\n"
    note = parse("specs/sessions.md", text)
    assert [(d.text, d.reason) for d in note.dead_ends] == [
        ("A shared Redis.", "A failover logged everyone out."), ("Sticky sessions", "deploys replace pods")]
    assert [a.text for a in note.accepted] == ["Keep sessions in signed cookies."]


def test_alternatives_named_by_label_lines_are_one_each_and_their_pros_and_cons_are_none():
    text = ("# KEP\n## Alternatives\nEight were considered.\n\n**Option 1:** One bag of resources\n"
            "Simple, but not tied to a device.\n\nPros:\n- compact\nCons:\n- not intuitive\n\n"
            "Alternative Considered: Two bags\nLike option 1.\n\n**Option 3:**\nShapes for every device,\n"
            "defined once. Too rigid.\n## Proposal\nMixins.\n")
    note = parse("decisions/kep.md", text)
    assert [(d.text, d.reason) for d in note.dead_ends] == [
        ("One bag of resources", "not intuitive"), ("Two bags", "Like option 1."),
        ("Shapes for every device, defined once.", "Too rigid.")]


def test_an_alternatives_list_under_pros_and_cons_labels_names_no_alternative():
    text = ("# Spec\n## Rejected alternatives\n- Polling -- too slow\n\nPros:\n- simple\n\n"
            "**Cons**:\n- load\n\nAfter the arguments.\n\n- Webhooks -- nobody runs them\n")
    assert [d.text for d in parse("specs/s.md", text).dead_ends] == ["Polling", "Webhooks"]


def test_a_heading_written_as_a_label_names_the_alternative_without_it():
    text = "# KEP\n## Alternatives\n### Alternative 2: Duck Typed CRDs\nToo loose.\n## Proposal\nA field.\n"
    assert [d.text for d in parse("decisions/kep.md", text).dead_ends] == ["Duck Typed CRDs"]


def test_a_checkpoint_records_what_it_chose_in_its_goal_else_its_summary():
    head = "---\ntype: checkpoint\n---\n# Checkpoint: x\n"
    with_goal = parse("projects/p/checkpoints/a.md", head + "## Summary\nWe looked around.\n"
                      "## Goal\nShip the outbox relay.\n## Failed\n- Retry inline -- it blocked requests\n")
    assert [a.text for a in with_goal.accepted] == ["Ship the outbox relay."]
    summary_only = parse("projects/p/checkpoints/b.md", head + "## Summary\nWe chose the outbox relay. "
                         "It holds up.\n## Failed\n- Retry inline\n")
    assert [a.text for a in summary_only.accepted] == ["We chose the outbox relay.", "It holds up."]


def test_a_goal_that_mentions_a_chosen_option_line_is_what_the_checkpoint_chose():
    head = "---\ntype: checkpoint\n---\n# Checkpoint: x\n"
    note = parse("projects/madr/checkpoints/a.md", head + "## Summary\nShould the labels be bold?\n"
                 '## Goal\nLeave line headings such as "Chosen option:" unformatted, as plain text.\n'
                 "## Failed\n- Bold the line headings -- the stars confuse readers\n")
    assert [a.text for a in note.accepted] == ['Leave line headings such as "Chosen option:" unformatted, '
                                               "as plain text."]


def test_prose_is_not_a_decision_record():
    note = parse("decisions/notes.md", "# Thoughts\nWe considered Redis but rejected it.\n")
    assert note.dead_ends == () and note.accepted == ()


def test_a_chosen_option_in_single_quotes_may_quote_inside_it():
    """MADR 0017: Chosen option: 'Section "Consequences" ... "Good, because" ...', because ..."""
    text = MADR.replace('Chosen option: "MVStore", because it is simple and memory-efficient.',
                        "Chosen option: 'MVStore', because it is simple.").replace(
        '* [MVStore](https://www.h2database.com/html/mvstore.html)', '* Section "Good, because" listing')
    text = text.replace("Chosen option: 'MVStore'", "Chosen option: 'Section \"Good, because\" listing'")
    note = parse("decisions/0017-quoted.md", text)
    assert [d.text for d in note.dead_ends] == ["JSON", "Custom format"]
    assert note.dead_ends[0].reason == "too verbose"


def test_underscores_inside_words_survive_markup_removal():
    text = ("# KEP\n## Alternatives\n### Patch _storage_core.go_\nEdit `storage_core.go` in place, "
            "**not** the snake_case API.\n## Proposal\nA new API.\n")
    note = parse("decisions/kep.md", text)
    assert note.dead_ends[0].text == "Patch storage_core.go"


def test_a_keps_authors_and_date_come_from_the_kep_yaml_beside_it():
    text = "# KEP-1\n## Alternatives\n### Poll the API\nToo slow.\n## Proposal\nWatch it.\n"
    sidecar = 'title: x\nauthors:\n  - "@ana"\n  - "@bo"\ncreation-date: 2019-04-02\n'
    note = parse_note("decisions/kep-1/README.md", text, CONFIG, sidecar)
    assert [(d.agent, d.when) for d in note.dead_ends] == [("@ana, @bo", 1554163200.0)]
    own = parse_note("decisions/kep-1/README.md", "---\nauthors: [Cy]\n---\n" + text, CONFIG, sidecar)
    assert own.dead_ends[0].agent == "Cy"  # the record's own frontmatter wins
    assert note.doc_time == own.doc_time == 1554163200.0  # its age is its creation date's
    assert parse("decisions/kep-1/README.md", text).dead_ends[0].when is None


def test_a_kep_alternatives_reason_is_what_its_cons_label_says():
    text = ("# KEP\n## Alternatives\n### Node labels\n* **Description**: Set the policy with a node label.\n"
            "* **Pros**: simple to apply.\n* **Why Rejected**: Labels identify objects. They carry no policy.\n"
            "  They lack structure.\n* **Notes**: discussed at SIG Node.\n### Annotations\nSet it with an "
            "annotation. Nobody liked it.\n## Proposal\nA field in the Node spec.\n")
    labels, annotations = parse("decisions/kep.md", text).dead_ends
    assert labels.reason == "Labels identify objects. They carry no policy. They lack structure."
    assert labels.detail.startswith("Node labels. Set the policy with a node label.")  # matching reads it all
    assert annotations.reason == "Set it with an annotation. Nobody liked it."  # no label: the description


def test_a_reason_in_prose_is_its_disadvantage_never_its_advantage_and_a_keps_deferring_label_is_read():
    """KEP-3077's "Per-component logger" was rejected for "It has the advantage that ...", its
    "The disadvantage is ..." left out; KEP-3850's reasons under "**Reasons for deferring /
    rejecting**" were its descriptions (qa191)."""
    text = ("# KEP\n## Alternatives\n### Per-component logger\nA logger could be set per object. It has the "
            "advantage that messages name the object.\n\nThe disadvantage is that call chains are lost.\n"
            "### Plain logger\nOne logger. The main benefit is speed. It was slow to adopt.\n"
            "### Nested runPolicy\nWe could nest the fields.\n\n**Reasons for deferring / rejecting**\n\n"
            "It is not clear what the best name is.\n### Integration test vs e2e test\nAn e2e test must be written "
            "in bash. Instead the Go integration test seems preferable.\n\nOne downside is that it runs on every "
            "change.\n## Proposal\nContextual logging.\n")
    component, plain, nested, e2e = parse("decisions/kep.md", text).dead_ends
    assert component.reason == "The disadvantage is that call chains are lost."
    assert plain.reason == "One logger. It was slow to adopt."
    assert nested.reason == "It is not clear what the best name is."
    # "One downside" is said of the design KEP-4214 prefers, after the reason (qa199)
    assert e2e.reason.startswith("An e2e test must be written in bash.")


def test_options_considered_in_a_table_are_its_rows_named_by_their_options_column():
    """A table of options with columns of pros and cons read as a record of no option: it
    rejected none, and a Chosen option naming none of them went unsaid (qa195)."""
    text = ("# Cache\n## Considered Options\n| Option | Pros | Cons |\n|---|---|---|\n| Redis | fast | ops |\n"
            "| **Memcached** | simple | no persistence |\n\n## Decision Outcome\nChosen option: \"Redis\", "
            "because we run it.\n\n## Pros and Cons of the Options\n### Memcached\n- Bad, because it loses data\n")
    note = parse("decisions/0001-cache.md", text)
    assert [(d.text, d.reason) for d in note.dead_ends] == [("Memcached", "it loses data")]
    unlisted = parse("decisions/0002-cache.md", text.replace('"Redis"', '"Hazelcast"'))
    assert "its Chosen option 'Hazelcast' names none of its Considered Options" in unlisted.yaml_error
    # the column headed as options, not the first: a column of row numbers had been the options
    # "1" and "2", and the chosen one rejected (qa198)
    numbered = text.replace("| Option | Pros | Cons |\n|---|---|---|\n| Redis | fast | ops |\n| **Memcached** |",
                            "| # | Option | Cons |\n|---|---|---|\n| 1 | Redis | ops |\n| 2 | **Memcached** |")
    assert [d.text for d in parse("decisions/0003-cache.md", numbered).dead_ends] == ["Memcached"]
    # a comparison matrix, its options as columns, lists no option: its criteria had been rejected (qa198)
    matrix = ("# Scheduler\n## Considered Options\n| Criterion | Cron on a VM | Airflow |\n|---|---|---|\n"
              "| Setup effort | low | high |\n| Retries | none | built in |\n\n## Decision Outcome\n"
              'Chosen option: "Airflow", because retries.\n')
    assert parse("decisions/0004-scheduler.md", matrix).dead_ends == ()


def test_cons_written_as_labelled_items_are_the_reason_and_an_alternative_marked_chosen_is_none():
    """KEP 3541: "Cons:" over "- Complexity: ..." items read as no reason (the description
    stood in), and "Alternative 3: (Now Primary Solution): Recreate Strategy" was raised as a
    dead end by its own chosen design (qa47)."""
    text = ("# KEP\n## Alternatives\n### Alternative 1: Timeout field\nAdd a timeout per pod.\n\nPros:\n\n"
            "- Keeps ordering\n\nCons:\n\n- Complexity: needs per-pod deadlines\n- Burden: users pick timeouts\n\n"
            "Why Not Chosen: Recreate is simpler.\n### Alternative 2: (Now Primary Solution): Recreate Strategy\n"
            "Delete every pod, then create them.\n### Alternative 3: Force flag\nA flag.\n\nCons:\n- Hidden\n")
    rulings = parse("decisions/kep.md", text).dead_ends
    assert [d.text for d in rulings] == ["Timeout field", "Force flag"]
    assert rulings[0].reason == "Complexity: needs per-pod deadlines; Burden: users pick timeouts"


def test_a_labelled_list_of_cons_is_the_reason_whole_and_never_ends_on_a_semicolon():
    """KEP 3541's fourth `Cons:` item was cut (three sentences at most), and 18 KEP reasons
    ended on the ";" of a cut item (qa163)."""
    cons = ["Complexity: needs per-pod deadlines", "Burden: users pick timeouts", "Blocks on transient issues",
            "Boolean flag does not allow tuning per workload"]
    text = ("# KEP\n## Alternatives\n### Alternative 1: Timeout field\nAdd a timeout per pod.\n\nCons:\n\n"
            + "".join(f"- {c};\n" for c in cons) + "### Alternative 2: Late recovery\nRecover late. However, user "
            "stories exist where;\n")
    rulings = parse("decisions/kep.md", text).dead_ends
    assert [d.reason for d in rulings] == ["; ".join(cons), "Recover late. However, user stories exist where"]


def test_a_justification_continued_as_a_list_below_the_chosen_line_is_kept():
    """jabref/0000: `Chosen option: "MADR 4.0.0", because` and the reasons as a list below."""
    text = MADR.replace("* Custom format\n", "* Custom format\n* YAML\n", 1).replace(
        "Chosen option: \"MVStore\", because it is simple and memory-efficient.",
        'Chosen option: "MVStore", because\n\n* it is simple.\n* it is small.\n* it is fast.')
    note = parse("decisions/0001.md", text)
    assert note.accepted[0].text == "MVStore, because it is simple; it is small"
    capitals = parse("decisions/0001.md", text.replace("* it is simple.\n* it is small.", "* It is simple.\n* HTTP is small."))
    assert capitals.accepted[0].text == "MVStore, because it is simple; HTTP is small"  # run on, names kept
    yaml = next(d for d in note.dead_ends if d.text == "YAML")
    assert yaml.reason == 'the record chose "MVStore" instead'  # the chosen one's "because" is not its


def test_a_bare_because_wrapped_into_a_sentence_keeps_the_sentence():
    """jabref/0032: `Chosen option: "In local user folder", because` / `it's very hard ...`:
    "Chosen instead" ended at "because" (qa51)."""
    text = MADR.replace("Chosen option: \"MVStore\", because it is simple and memory-efficient.",
                        'Chosen option: "MVStore", because\nit is simple and\nmemory-efficient.\n\nMore later.')
    assert parse("decisions/0001.md", text).accepted[0].text == "MVStore, because it is simple and memory-efficient."


def test_a_chosen_option_on_the_line_below_its_label_is_read():
    """`Chosen option:` then `"MVStore", because ...` on the next line: "the record chose ':'
    instead" (qa53)."""
    text = MADR.replace("Chosen option: \"MVStore\", because it is simple and memory-efficient.",
                        'Chosen option:\n"MVStore", because it is simple and memory-efficient.')
    note = parse("decisions/0001.md", text)
    assert note.accepted[0].text == "MVStore, because it is simple and memory-efficient."
    assert "MVStore" not in [d.text for d in note.dead_ends]


def test_a_hard_wrapped_chosen_option_line_keeps_its_whole_reason():
    """`because it runs in our Python workers without` / `a browser, ...`: cut at the break."""
    text = MADR.replace("Chosen option: \"MVStore\", because it is simple and memory-efficient.",
                        'Chosen option: "MVStore", because it is simple and\nmemory-efficient.\n* Consequence: none')
    note = parse("decisions/0001.md", text)
    assert note.accepted[0].text == "MVStore, because it is simple and memory-efficient."
    finished = MADR.replace("because it is simple and memory-efficient.",  # madr/0012: the next sentence is another matter
                            "because it is simple.\nException: the bare templates use HTML comments.")
    assert parse("decisions/0001.md", finished).accepted[0].text == "MVStore, because it is simple."


def test_a_chosen_option_named_by_a_few_of_its_own_words_is_not_a_dead_end():
    """The outcome "Put it in a new panel" names the option that holds all of its words."""
    text = MADR.replace("* [MVStore](https://www.h2database.com/html/mvstore.html)",
                        "* Put the chats in a side panel labelled History, new for this: one place for all").replace(
        'Chosen option: "MVStore"', 'Chosen option: "Put it in a new panel"')
    assert [d.text for d in parse("decisions/0001.md", text).dead_ends] == ["JSON", "Custom format"]


def test_a_pros_and_cons_heading_marked_chosen_names_the_chosen_option():
    text = MADR.replace('Chosen option: "MVStore"', 'Chosen option: "the store"').replace(
        "### Custom format\n", "### MVStore (chosen)\n\n* Good, because small\n\n### Custom format\n")
    note = parse("decisions/0001.md", text)
    assert [d.text for d in note.dead_ends] == ["JSON", "Custom format"]
    assert note.dead_ends[1].reason == "involves writing our own parser"


def test_several_chosen_options_listed_as_bold_names_under_the_outcome_are_no_dead_ends():
    text = MADR.replace("* Custom format\n", "* Custom format\n* SQLite file, public domain\n", 1).replace(
        'Chosen option: "MVStore", because it is simple and memory-efficient.',
        "Chosen option: A layered set of stores, picked by what is installed.\n\n"
        "1. **SQLite** (First choice). Always there.\n2. **MVStore** (Fallback), when SQLite is missing.\n\n"
        "JSON is not selected because it is verbose.")
    note = parse("decisions/0001.md", text)
    assert [d.text for d in note.dead_ends] == ["JSON", "Custom format"]
    assert note.accepted[0].text.startswith("SQLite; MVStore, A layered set of stores")


def test_a_kep_reason_is_read_from_why_not_cons_emphasis_and_cons_or_drawbacks_headings():
    text = ("# KEP\n## Alternatives\n### Fast lane\nA new enum value lets pods opt in.\n\n"
            "**Why not?**: Too risky for the node. Users could abuse it.\n\n"
            "### Tags in tests\nPut the list in test files.\n\n*Pros*\n* Keeps them together.\n\n"
            "*Cons*\n* Tooling must parse Go.\n* Hard to review.\n\n"
            "### Register requests\nNodes ask for ranges.\n#### Pros\n* Flexible.\n#### Cons\n"
            "* More complex IPAM.\n\n### Post-process\nRewrite errors later.\n#### Drawbacks\n##### Fragile paths\nPaths break.\n"
            "#### Details\nLong text.\n## Proposal\nA field.\n")
    fast, tags, register, post = parse("decisions/kep.md", text).dead_ends
    assert fast.reason == "Too risky for the node. Users could abuse it."
    assert tags.reason == "Tooling must parse Go. Hard to review."
    assert register.reason == "More complex IPAM."
    assert post.reason == "Fragile paths: Paths break."  # an empty "#### Drawbacks" holds its "#####" parts


def test_a_kep_reason_without_a_label_stops_before_the_pros_and_keeps_a_numbered_list_whole():
    text = ("# KEP\n## Alternatives\n### Lease\nUse the lease (i.e. the old reconciler) for it.\n\n"
            "*Pros*\n* Already there.\n\n### Heuristics\nThey share negatives:\n1. harder to reason about\n"
            "2. slower to recover\n## Proposal\nA field.\n")
    lease, heuristics = parse("decisions/kep.md", text).dead_ends
    assert lease.reason == "Use the lease (i.e. the old reconciler) for it."
    assert heuristics.reason == "They share negatives: harder to reason about; slower to recover"


def test_a_madr_options_bad_lines_after_a_sub_heading_are_its_reason():
    text = MADR.replace("### Custom format\n", "### Custom format\n\n#### Examples\n\n* an example\n\n---\n\n")
    custom = parse("decisions/0001.md", text).dead_ends[1]
    assert custom.reason == "involves writing our own parser"


def test_a_madr_option_gets_the_bad_lines_of_the_heading_worded_shorter_and_no_chosen_rationale():
    text = MADR.replace("* Custom format\n", "* Write a custom format of our own for the chats\n", 1)
    custom = parse("decisions/0001.md", text).dead_ends[1]
    assert custom.reason == "involves writing our own parser"  # "### Custom format" is its heading
    bare = parse("decisions/0001.md", text.replace("* Bad, because involves writing our own parser\n", ""))
    assert bare.dead_ends[1].reason == 'the record chose "MVStore" instead'


def test_a_bad_line_ending_in_a_colon_goes_on_in_its_nested_items():
    text = MADR.replace("* Bad, because too verbose\n", "* Bad, because:\n  1. too verbose.\n  2. slow to parse.\n")
    assert parse("decisions/0001.md", text).dead_ends[0].reason == "too verbose; slow to parse"


def test_madr_deciders_come_from_decision_makers_or_a_deciders_line_in_the_body():
    four = MADR.replace("deciders: [Ana, Bo]", 'decision-makers: "@cy, @di"')
    assert parse("decisions/0001.md", four).dead_ends[0].agent == "@cy, @di"
    two = MADR.replace("deciders: [Ana, Bo]\n", "").replace("# Store chats\n", "# Store chats\n\n* Deciders: Eve\n")
    assert parse("decisions/0001.md", two).dead_ends[0].agent == "Eve"


def test_a_madr_option_group_label_ending_in_a_colon_opens_to_its_nested_options():
    text = MADR.replace("* JSON\n", "* When saving:\n  * JSON\n  * YAML\n").replace(
        "* Custom format\n", "* Custom format\n* When loading:\n  * Stream it\n", 1)
    assert [d.text for d in parse("decisions/0001.md", text).dead_ends] == ["JSON", "YAML", "Custom format", "Stream it"]


def test_kep_alternative_groups_open_to_their_sub_headings_and_an_appendix_is_none():
    text = ("# KEP\n## Alternatives\n### Other designs\nTwo more were weighed; the proposal won.\n"
            "#### Design A: a sidecar\nRuns beside the pod. Too heavy.\n#### Design B: a cache\nStale reads.\n"
            "### Selecting by name\n#### Workarounds in the apiserver\n* A virtual label, not stored. It diverges.\n"
            "* A selector syntax for fields. Too complicated.\n#### A new selector field\nFails open for old clients.\n"
            "### Others:\n* Reuse the storage class\n* Reuse resource claims\n"
            "### Single field\nOne field for all.\n#### API\nA field.\n##### Pros\n* simple\n##### Cons\n* rigid\n"
            "### Appendix - survey\nWho took part.\n## Proposal\nA class.\n")
    assert [d.text for d in parse("decisions/kep.md", text).dead_ends] == [
        "Design A: a sidecar", "Design B: a cache", "A virtual label, not stored.",
        "A selector syntax for fields.", "A new selector field", "Reuse the storage class",
        "Reuse resource claims", "Single field"]


def test_a_record_no_longer_in_force_carries_its_status_and_every_record_its_title():
    superseded = parse("decisions/0001.md", MADR.replace("status: accepted", 'status: "superseded by ADR-0009"'))
    assert {(d.record_status, d.record_title) for d in superseded.dead_ends} == {
        ("superseded by ADR-0009", "Store chats")}
    assert parse("decisions/0001.md", MADR).dead_ends[0].record_status is None  # accepted: in force
    superseding = MADR.replace("status: accepted", 'status: "accepted; supersedes ADR-0002"')
    assert parse("decisions/0001.md", superseding).dead_ends[0].record_status is None
    madr2 = MADR.replace("status: accepted\n", "").replace("# Store chats\n", "# Store chats\n\n* Status: on hold\n")
    assert parse("decisions/0001.md", madr2).dead_ends[0].record_status == "on hold"
    kep = "# KEP-7: Faster restarts\n## Alternatives\n### Poll the API\nToo slow.\n## Proposal\nWatch it.\n"
    withdrawn = parse_note("keps/sig-x/7-faster/README.md", kep, CONFIG, "title: Faster\nstatus: withdrawn\n")
    assert (withdrawn.dead_ends[0].record_status, withdrawn.dead_ends[0].record_title) == (
        "withdrawn", "KEP-7: Faster restarts")


def test_a_pros_and_cons_of_the_alternatives_heading_holds_no_rulings_of_its_own():
    """MADR 1's heading ends in "Alternatives": its parts, the chosen one's too, were read as
    an RFC's rejected alternatives ("Redis -- Good, because it has sorted sets")."""
    text = MADR.replace("## Pros and Cons of the Options", "## Pros and Cons of the Alternatives") \
        .replace("### JSON", "### MVStore\n\n* Good, because it is simple\n\n### JSON")
    rulings = parse("decisions/0001.md", text).dead_ends
    assert [(d.text, d.reason) for d in rulings] == [("JSON", "too verbose"),
                                                    ("Custom format", "involves writing our own parser")]


def test_an_option_chosen_by_its_number_is_no_ruling():
    text = MADR.replace("* JSON\n* [MVStore]", "1. JSON\n2. [MVStore]").replace("* Custom format\n\n## Decision",
                                                                               "3. Custom format\n\n## Decision")
    rulings = parse("decisions/0001.md", text.replace('Chosen option: "MVStore"', "Chosen option: 2")).dead_ends
    assert [d.text for d in rulings] == ["JSON", "Custom format"]
    bare = parse("decisions/0001.md", text.replace('Chosen option: "MVStore"', "Chosen option: Option 2")
                 .replace("* Bad, because too verbose\n", "")).dead_ends
    assert bare[0].reason == 'the record chose "MVStore" instead'  # the option it numbers, not "2"


def test_pros_and_cons_written_as_a_nested_list_give_each_option_its_reason():
    text = MADR.split("## Pros and Cons")[0] + (
        "## Pros and Cons of the Options\n\n* JSON\n  * Good, because widely used\n  * Bad, because too verbose\n"
        "* Custom format\n  * Bad, because involves writing our own parser\n")
    rulings = parse("decisions/0001.md", text).dead_ends
    assert [(d.text, d.reason) for d in rulings] == [("JSON", "too verbose"),
                                                    ("Custom format", "involves writing our own parser")]


def test_a_nygard_records_date_line_and_status_section_are_read():
    nygard = ("# 25. Use ElastiCache for rate limits\n\nDate: 2019-06-11\n\n## Status\n\n"
              "Superseded by [31. Use Redis on EC2](0031-use-redis-on-ec2.md)\n\n## Context\n\nLimits.\n\n"
              "## Decision\n\nUse ElastiCache.\n\n## Alternatives considered\n\n"
              "- Memcached on each node -- counts drift between nodes\n")
    record = parse("doc/adr/0025-use-elasticache.md", nygard)
    (ruling,) = record.dead_ends
    assert ruling.when == 1560211200.0  # 2019-06-11: was "an unknown date"
    assert record.doc_time == 1560211200.0  # its age, as decay and `age_days` read it: was the file's (qa59)
    assert ruling.record_status == "Superseded by 31. Use Redis on EC2"
    madr2 = MADR.replace("---\nstatus: accepted\ndate: 2024-05-02\ndeciders: [Ana, Bo]\n---\n", "") \
        .replace("# Store chats\n", "# Store chats\n\n* Status: accepted\n* Date: 2021-03-04\n")
    assert parse("decisions/0001.md", madr2).dead_ends[0].when == 1614816000.0


def test_a_record_edited_since_dates_its_rulings_by_its_date_not_its_update():
    """`date: 2026-11-20` and `updated: 2026-12-04`: every ruling had been "Rejected on
    2026-12-04", the day someone edited the record (qa178)."""
    text = ("---\ntype: decision\ndate: 2026-11-20\nupdated: 2026-12-04\n---\n# Queue\n\n## Considered Options\n\n"
            "* RabbitMQ\n* Kafka\n\n## Decision Outcome\n\nChosen option: \"Kafka\", because we need replay.\n")
    (ruling,) = parse("decisions/0001-queue.md", text).dead_ends
    assert ruling.when == 1795132800.0  # 2026-11-20
    # a Nygard record's `Date:` line dates its rulings too; its age is its last edit's (qa188)
    nygard = ("---\nupdated: 2026-11-01\n---\n# 4. Queue\n\nDate: 2026-04-04\n\n## Decision\n\nUse Kafka.\n\n"
              "## Alternatives considered\n\n- RabbitMQ -- no replay\n")
    record = parse("docs/adr/0004-queue.md", nygard)
    assert record.dead_ends[0].when == 1775260800.0  # 2026-04-04
    assert record.doc_time == 1793491200.0  # 2026-11-01


def test_the_options_a_decision_weighs_and_turns_down_are_no_statement_of_the_choice():
    """GOV.UK's ADR 19 lists its three options under `## Decision` and discounts two: each had
    been a chosen design, and kept quiet an agent's own ruling that restated one (qa169)."""
    nygard = ("# 19. Centralise MySQL Databases\n\nDate: 2017-08-02\n\n## Decision\n\nWe discussed three options:\n\n"
              " 1. have one admin instance per MySQL database\n 2. manage the users and databases in terraform itself\n"
              " 3. centralise the MySQL databases and have one admin machine manage them all\n\n"
              "The first option costs the most. We decided against this due to cost.\n\n"
              "Option 2 was discounted as we do not want Terraform providers to manage users.\n\n"
              "The final option, the one we have chosen, is a single admin instance.\n")
    record = parse("docs/architecture/decisions/0019-centralise-mysql.md", nygard)
    assert [a.text for a in record.accepted] == [
        "The first option costs the most.",
        "The final option, the one we have chosen, is a single admin instance."]
    # a sentence that turns one down and states the choice, and a list of what was settled on, are
    # statements of it (both had been dropped, qa189)
    both = ("# 20. Sessions\n\n## Decision\n\nWe ruled out Redis and will keep sessions in signed cookies.\n\n"
            "Of the approaches we weighed, we settled on these two:\n\n- Rotate the key monthly\n- Sign with HMAC\n")
    assert [a.text for a in parse("docs/adr/0020-sessions.md", both).accepted] == [
        "We ruled out Redis and will keep sessions in signed cookies.",
        "Of the approaches we weighed, we settled on these two:", "Rotate the key monthly", "Sign with HMAC"]


def test_an_alternative_listed_as_name_colon_why_is_named_by_its_name():
    """The commonest bullet of an ADR's alternatives was one long ruling with no reason."""
    text = ("# 15. Container registry\n\n## Decision\n\nUse the cloud registry.\n\n## Alternatives considered\n\n"
            "- Self-hosted Harbor: image scanning is good, but it is one more stateful service to run\n"
            "- Docker Hub -- rate limits on pulls\n"
            "- RestartPolicy: Rapid -- a new enum value needs kubelet skew handling\n"  # named whole (qa179)
            "- Share bases: bases were too rigid.\n  - the overlays could not change them\n")  # split still (qa189)
    harbor, hub, policy, bases = parse("doc/adr/0015-container-registry.md", text).dead_ends
    assert (bases.text, bases.reason) == ("Share bases", "bases were too rigid. the overlays could not change them")
    assert (policy.text, policy.reason) == ("RestartPolicy: Rapid", "a new enum value needs kubelet skew handling")
    assert (harbor.text, harbor.reason) == ("Self-hosted Harbor",
                                            "image scanning is good, but it is one more stateful service to run")
    assert "image scanning" in harbor.detail  # compared as written too
    assert (hub.text, hub.reason) == ("Docker Hub", "rate limits on pulls")


def test_a_chosen_option_quoting_a_code_span_that_holds_a_quote_is_read_whole():
    """`Chosen option: "Use `"strict": true` in tsconfig"` had been read as the option "Use `"
    (the span's own quote ended it, qa188)."""
    text = ("# TS config\n\n## Considered Options\n\n* Use `\"strict\": true` in tsconfig\n* Loose mode\n\n"
            "## Decision Outcome\n\nChosen option: \"Use `\"strict\": true` in tsconfig\", because it catches bugs.\n")
    record = parse("decisions/0001-ts.md", text)
    assert [(d.text, d.reason) for d in record.dead_ends] == [
        ("Loose mode", 'the record chose "Use `"strict": true` in tsconfig" instead')]


def test_a_code_span_in_an_alternative_keeps_its_underscores():
    text = ("# Deferred annotations\n\n## Proposal\n\nCache them.\n\n## Rejected ideas\n\n"
            "- Making `__annotations__` a lazy mapping -- breaks code that mutates it\n")
    (ruling,) = parse("decisions/pep-1.md", text).dead_ends
    assert ruling.text == "Making __annotations__ a lazy mapping"  # was "Making annotations a lazy mapping"


def test_a_pep_style_records_title_line_names_it_not_its_abstract_heading():
    text = ("PEP: 9001\nTitle: Deferred annotations cache\nAuthor: Ana\nCreated: 2024-01-05\n\n# Abstract\n\n"
            "Cache them.\n\n## Rejected ideas\n\n- Compute them eagerly -- import time doubles\n")
    (ruling,) = parse("decisions/pep-9001.md", text).dead_ends
    assert (ruling.record_title, ruling.agent) == ("Deferred annotations cache", "Ana")
    assert ruling.when == 1704412800.0  # its Created: line


def test_a_madr_option_is_listed_as_a_reader_sees_it():
    text = MADR.replace("* JSON\n", "* **JSON** via [Jackson](https://github.com/FasterXML/jackson)\n")
    ruling = parse("decisions/0001.md", text).dead_ends[0]
    assert ruling.text == "JSON via Jackson"  # was "**JSON** via [Jackson](https://github.com/...)"
    assert "github.com" in ruling.detail  # compared as written too


def test_a_why_rejected_item_is_the_reason_without_its_label():
    text = ("# 25. Rate limits\n\n## Decision\n\nMemcached.\n\n## Alternatives considered\n\n"
            "- DynamoDB atomic counters\n  - Why rejected: a write per request costs too much\n")
    (ruling,) = parse("doc/adr/0025-rate-limits.md", text).dead_ends
    assert (ruling.text, ruling.reason) == ("DynamoDB atomic counters", "a write per request costs too much")


def test_a_label_line_is_named_by_its_first_sentence_and_a_wrapped_cons_is_its_whole_reason():
    text = ("# Offline sync\n\n## Decision\n\nUse CRDTs.\n\n## Alternatives\n\n"
            "**Option 1:** Last write wins. Simple to build.\nCons: edits made offline are lost.\n\n"
            "**Option 2:** Lock the work order to one device while it is checked out. Cons: a technician\n"
            "who drops a phone in a lift shaft keeps the order locked.\n")
    lww, lock = parse("decisions/0018-offline-sync.md", text).dead_ends
    assert (lww.text, lww.reason) == ("Last write wins.", "edits made offline are lost.")
    assert lock.text == "Lock the work order to one device while it is checked out."
    assert lock.reason == "a technician who drops a phone in a lift shaft keeps the order locked."


def test_a_rejected_options_pros_and_cons_part_is_where_it_is_argued():
    """A search hit in ``### JSON`` under Pros and Cons showed a rejected option's arguments
    as if they were the design: the ruling keeps that part's line, for the hit to say so."""
    lines = MADR.splitlines()
    json_item, custom_item = lines.index("* JSON") + 1, lines.index("* Custom format") + 1
    note = parse("decisions/0001.md", MADR)
    part = {s.heading: s.line_start for s in note.sections}  # "Pros and Cons", empty, is folded into JSON's
    assert [(d.line, d.described_at) for d in note.dead_ends] == [(json_item, part["JSON"]),
                                                                  (custom_item, part["Custom format"])]
    nested = MADR.split("## Pros and Cons")[0] + (
        "## Pros and Cons of the Options\n\n* JSON\n  * Bad, because too verbose\n* Custom format\n  * Bad, because slow\n")
    at = len(nested.splitlines()) - 3  # the "* JSON" item under Pros and Cons
    assert [d.described_at for d in parse("decisions/0001.md", nested).dead_ends] == [at, at + 2]
    assert parse("decisions/0001.md", KEP).dead_ends[0].described_at is None  # described where it is listed


def test_a_reason_reads_links_as_their_text_and_joins_sentences_cleanly():
    # "Why it was not chosen: [getting a dependency list is not straight forward](https://...)"
    # and "need synchronization.; `WatchService` ..." in deadend check, list and resume (qa24 #9)
    record = MADR.replace("* Bad, because too verbose",
                          "* Bad, because [it is verbose](https://example.org/v) and needs syncing.\n"
                          "* Bad, because `WatchService` downgrades to polling.")
    json_option = parse("decisions/0001-store-chats.md", record).dead_ends[0]
    assert json_option.reason == "it is verbose and needs syncing; `WatchService` downgrades to polling."


def test_a_chosen_option_naming_none_of_the_options_is_said():
    # "Braille dots" among Hash marks, Unicode blocks and A spinner: every option became a
    # ruling without a word (qa24 #6); none of the 80 MADR records of the corpus is so
    record = MADR.replace('Chosen option: "MVStore"', 'Chosen option: "Braille dots"')
    note = parse("decisions/0001-store-chats.md", record)
    assert note.yaml_error == ("its Chosen option 'Braille dots' names none of its Considered Options: every "
                               "option is read as rejected; fix the name if it is a typo")
    assert parse("decisions/0001-store-chats.md", MADR).yaml_error is None


def test_an_outcome_in_prose_names_the_chosen_option_and_one_naming_none_rejects_none():
    """MADR headings whose outcome is a sentence, and a Nygard-style `## Options Considered`
    with a `## Decision`: every option had been read as rejected, the chosen one too, and a
    proposal of what was decided was "tried before" (qa132)."""
    prose = MADR.replace('Chosen option: "MVStore", because it is simple and memory-efficient.',
                         "We picked MVStore over JSON, because it is simple and memory-efficient.")
    note = parse("decisions/0001-store-chats.md", prose)
    assert [(d.text, d.reason) for d in note.dead_ends] == [
        ("JSON", "too verbose"), ("Custom format", "involves writing our own parser")]
    assert note.yaml_error is None
    nygard = ("# 7. Page cache\n\n## Options Considered\n\n- A CDN in front of the app\n"
              "- Redis fragment cache inside the app\n\n## Decision\n\n"
              "We will use a Redis fragment cache inside the app, since the CDN cannot vary by user.\n")
    assert [(d.text, d.reason) for d in parse("decisions/0007-cache.md", nygard).dead_ends] == [
        ("A CDN in front of the app", 'the record chose "Redis fragment cache inside the app" instead')]
    unnamed = parse("decisions/0001-store-chats.md", prose.replace("We picked MVStore over JSON", "We agreed"))
    assert unnamed.dead_ends == () and unnamed.yaml_error == (
        "its outcome names none of the options it considered: no option is read as rejected; "
        'write `Chosen option: "X", because ...` there, with X as listed')
    open_still = prose.split("## Decision Outcome")[0]  # no outcome yet: every option open, nothing said
    assert parse("decisions/0001-store-chats.md", open_still).dead_ends == ()
    assert parse("decisions/0001-store-chats.md", open_still).yaml_error is None


def test_a_prose_outcome_is_read_from_where_it_says_what_it_chose_and_sub_headings_are_options():
    """"Loguru was tempting, but we picked structlog" named loguru as chosen; "we will not put
    Varnish ...; we will use Redis" named none; options as sub-headings under `## Options
    Considered` were all rejected, the chosen one too, and under MADR's `## Considered Options`
    none was read (qa133)."""
    options = "## Considered Options\n\n* structlog\n* loguru\n* the standard logging module\n\n## Decision Outcome\n\n"
    for outcome in ("Loguru was tempting, but we picked structlog because it binds context per request.",
                    "Neither loguru nor the standard logging module binds context, so we picked structlog.",
                    "After two weeks of trials the team met on Friday. We picked structlog, because it binds.",
                    "We will not use loguru; we will use structlog."):
        note = parse("decisions/0008-log.md", "# Logging\n\n" + options + outcome + "\n")
        assert [d.text for d in note.dead_ends] == ["loguru", "the standard logging module"], outcome
    nygard = ("# 7. Page cache\n\n## Options Considered\n\n### Option 1: Varnish in front of the app\n\nFast.\n\n"
              "### Option 2: Redis fragment cache inside the app\n\nPer user segment.\n\n### Option 3: A CDN\n\nCheap.\n\n"
              "## Decision\n\nWe will use the Redis fragment cache inside the app, because pages are personalised.\n")
    assert [d.text for d in parse("docs/adr/0007-cache.md", nygard).dead_ends] == ["Varnish in front of the app", "A CDN"]
    unsaid = parse("docs/adr/0007-cache.md", nygard.replace("We will use the Redis fragment cache inside the app", "We agreed"))
    assert unsaid.dead_ends == () and unsaid.yaml_error.startswith("its outcome names none of the options it considered")
    madr = ("# Logging\n\n## Considered Options\n\n### structlog\n\nBinds context.\n\n### loguru\n\nNo binding.\n\n"
            '## Decision Outcome\n\nChosen option: "structlog", because it binds.\n')
    assert [d.text for d in parse("decisions/0008-log.md", madr).dead_ends] == ["loguru"]
    # a sentence saying what was turned down names no choice ("Loguru was rejected ..." had named loguru, qa134)
    ruled = parse("decisions/0008-log.md", "# Logging\n\n" + options + "We ruled out loguru. structlog it is.\n")
    assert [d.text for d in ruled.dead_ends] == ["loguru", "the standard logging module"]
    only = parse("decisions/0008-log.md", "# Logging\n\n" + options + "Loguru was rejected because it cannot bind.\n")
    assert only.dead_ends == () and only.yaml_error.startswith("its outcome names none of the options it considered")
    # an outcome choosing two chooses both ("structlog" alone had been taken for "structlog and
    # loguru"), and a sub-heading beside listed options is one of them (qa134)
    both = parse("decisions/0008-log.md", "# Logging\n\n" + options + "We will use structlog and loguru.\n")
    assert [d.text for d in both.dead_ends] == ["the standard logging module"]
    mixed = ("# Logging\n\n## Options Considered\n\n* structlog\n* loguru\n\n### The standard logging module\n\n"
             "Plain.\n\n## Decision\n\nWe will use structlog.\n")
    assert [d.text for d in parse("docs/adr/0008-log.md", mixed).dead_ends] == ["loguru", "The standard logging module"]


def test_an_option_struck_out_in_the_considered_options_is_no_ruling():
    """The README's way to say "this works now" retired a KEP's alternative but not a MADR
    record's option, which stayed a ruling with its markup (qa76)."""
    struck = MADR.replace("* Custom format\n", "* ~~Custom format~~ fine now with a generator\n", 1)
    assert [d.text for d in parse("decisions/0001-store-chats.md", struck).dead_ends] == ["JSON"]


def test_a_records_title_and_chosen_option_read_as_a_reader_reads_them():
    """KEP-3077's title showed "[KEP-3077](https://...): contextual logging" in every interruption,
    and jabref/0004's chosen option "\\(see below\\)" with its backslashes (qa76)."""
    kep = KEP.replace("# KEP-1: Eviction requests", "# [KEP-1](https://github.com/k/e/issues/1): Eviction requests")
    assert parse("keps/sig-node/1-evict/README.md", kep).dead_ends[0].record_title == "KEP-1: Eviction requests"
    escaped = MADR.replace('because it is simple and memory-efficient.', 'because it comes out best \\(see below\\).')
    assert parse("decisions/0001-store-chats.md", escaped).accepted[0].text == "MVStore, because it comes out best (see below)."


def test_a_kep_reason_is_what_its_disadvantages_problem_or_rejected_sentence_says_never_its_advantages():
    # KEP-3203 gave an option's Advantages as why it was rejected, KEP-1880 dropped its "Problem:"
    # lines and KEP-3141 its "Rejected as ..." paragraphs (qa123)
    text = ("# KEP\n## Alternatives\n### Only a bucket\nA bucket holds the feed.\n\n"
            "  * Advantages:\n      * Transparent updates.\n  * Disadvantages:\n      * An unofficial looking URL.\n\n"
            "### Alternative 1\nFrom Daniel:\n> Each apiserver keeps a lock list.\n\nProblem: Strong dependency on etcd\n\n"
            "### A policy object\nA new policy object controls access.\n\nIt is tied to a user.\n\n"
            "Rejected as PSP was recently deprecated. We follow the standards instead.\n\n"
            "### Quoted\n> Store a bitmap in memory.\n> Keep only its hash.\n\n## Proposal\nA field.\n")
    bucket, first, policy, quoted = parse("decisions/kep.md", text).dead_ends
    assert bucket.reason == "An unofficial looking URL."
    assert first.reason == "Strong dependency on etcd"
    assert policy.reason == "Rejected as PSP was recently deprecated. We follow the standards instead."
    assert quoted.reason == "Store a bitmap in memory. Keep only its hash."  # a quote's marks are no words


def test_a_madr_option_argued_under_a_heading_a_level_too_high_keeps_its_bad_lines():
    # JabRef's 0050 writes "## Use palantir-java-format" after "### Use prettier-java": each such
    # option was said to be rejected for the chosen one, its Bad lines unread (qa123)
    text = MADR.replace("### Custom format\n", "## Custom format\n")
    json_option, custom = parse("decisions/0001.md", text).dead_ends
    assert (json_option.reason, custom.reason) == ("too verbose", "involves writing our own parser")
    # ...and an option at its right level after one a level too high is its own (qa124)
    mixed = text.replace("* Custom format\n", "* Custom format\n* XML\n", 1) + "### XML\n* Bad, because angle brackets\n"
    reasons = [r.reason for r in parse("decisions/0001.md", mixed).dead_ends]
    assert reasons == ["too verbose", "involves writing our own parser", "angle brackets"]


def test_a_pro_written_on_its_labels_line_is_never_the_reason():
    # "Advantages: fewer requests reach the origin" with its text on the line had been read as
    # part of why the option was rejected, after a rejection sentence too (qa124)
    text = ("# KEP\n## Alternatives\n### Client-side caching\nLet browsers cache pages for a minute.\n"
            "Advantages: fewer requests reach the origin.\n\n### Syslog-ng\nShip logs with syslog-ng.\n\n"
            "It was rejected because its Loki output was experimental.\n**Advantages:** already on every host.\n"
            "## Proposal\nA field.\n")
    caching, syslog = parse("decisions/kep.md", text).dead_ends
    assert caching.reason == "Let browsers cache pages for a minute."
    assert syslog.reason == "It was rejected because its Loki output was experimental."


def test_a_decision_that_mentions_the_chosen_option_line_chose_nothing_by_it():
    """A record's Decision Outcome reading `Leave line headings such as "Chosen option:"
    unformatted` was taken for the line and chose "unformatted." (qa128)."""
    text = ('# ADR 7: emphasis\n## Considered Options\n* Bold the labels\n* Plain labels\n## Decision Outcome\n'
            'Leave line headings such as "Chosen option:" unformatted, as plain text.\n')
    note = parse("decisions/0007.md", text)
    assert [a.text for a in note.accepted] == ['Leave line headings such as "Chosen option:" unformatted, '
                                               "as plain text."]
    marked = parse("decisions/0007.md", text.replace(
        'Leave line headings such as "Chosen option:" unformatted, as plain text.',
        '* **Chosen option:** "Plain labels", because they open the line.'))
    assert [d.text for d in marked.dead_ends] == ["Bold the labels"]


def test_wikilinks_in_a_records_options_and_title_read_as_their_text():
    """"Use redis-cluster|a Redis cluster for sessions", `[[loguru|Loguru]]` and a title keeping
    `[[sessions|sessions]]`: a record's wikilinks were half read where its Markdown links read
    as their text (qa133)."""
    record = ("# Where [[sessions|sessions]] live\n\n## Considered Options\n\n"
              "* Use [[redis-cluster|a Redis cluster]] for sessions\n* [[signed-cookies|Signed cookies]]\n\n"
              '## Decision Outcome\n\nChosen option: "Signed cookies", because nothing to run.\n')
    note = parse("decisions/0003-sessions.md", record)
    assert [(d.text, d.record_title) for d in note.dead_ends] == [("Use a Redis cluster for sessions",
                                                                    "Where sessions live")]


def test_a_wikilink_in_an_alternatives_list_reads_as_its_text():
    """"Use redis-cluster|a Redis cluster for sessions": an RFC's listed alternative kept the
    wikilink's target beside its text (qa134)."""
    record = ("# Sessions\n\n## Alternatives\n\n- Use [[redis-cluster|a Redis cluster]] for sessions: one more service\n"
              "- Sticky sessions on the load balancer: deploys replace the pods\n")
    assert [d.text for d in parse("decisions/0003-sessions.md", record).dead_ends] == [
        "Use a Redis cluster for sessions", "Sticky sessions on the load balancer"]


def test_an_option_written_as_a_sub_heading_is_argued_by_its_bad_lines_never_its_good_ones():
    """MADR options as sub-headings under `## Considered Options` were given their Good lines as
    the reason ("Good, because its API is small"), and their Bad lines under Pros and Cons were
    not read (qa134)."""
    own = ("# Logging\n\n## Considered Options\n\n### structlog\n\n* Good, because it binds\n\n### loguru\n\n"
           "* Good, because its API is small\n* Bad, because it cannot bind context per request\n\n### stdlib\n\nPlain.\n\n"
           '## Decision Outcome\n\nChosen option: "structlog", because it binds.\n')
    expected = [("loguru", "it cannot bind context per request"), ("stdlib", 'the record chose "structlog" instead')]
    assert [(d.text, d.reason) for d in parse("decisions/0008-log.md", own).dead_ends] == expected
    apart = ("# Logging\n\n## Considered Options\n\n### structlog\n\n### loguru\n\n### stdlib\n\n"
             '## Decision Outcome\n\nChosen option: "structlog", because it binds.\n\n## Pros and Cons of the Options\n\n'
             "### loguru\n\n* Bad, because it cannot bind context per request\n")
    assert [(d.text, d.reason) for d in parse("decisions/0008-log.md", apart).dead_ends] == expected


def test_a_ruling_under_a_heading_the_record_repeats_opens_its_own_section(make_vault):
    """A KEP's alternative `### Job API` under Alternatives had the ref `#Job API`, which opens
    the chosen design's `Design Details > Job API` above it (qa163)."""
    from vault_engine.vault import Vault

    kep = KEP.replace("## Proposal\n", "## Proposal\n### Pod API\nThe chosen design, detailed.\n")
    with Vault(make_vault({"decisions/kep-1.md": kep})) as vault:
        vault.index(embed=False)
        (pod_api,) = [r for r in vault.deadend_list() if r.text == "Pod API"]
        shown = vault.show(pod_api.ref)
    assert pod_api.ref == "decisions/kep-1.md#Alternatives [optional]#Pod API"
    assert shown.line_start == pod_api.line and "Use pod conditions" in shown.text


def test_a_hard_wrapped_line_ending_in_a_colon_goes_on_with_the_reason():
    """"...associated with the error\\nto potentially ignore errors:" was read as a new label,
    and the reason stopped mid-sentence (KEP-4008, qa166)."""
    text = ("# KEP\n## Alternatives\n### Post-Process Errors\nWarn instead.\n#### Drawbacks\n"
            "There are a few problems with using the FieldPath associated with the error\n"
            "to potentially ignore errors:\n\n1. Prepending item to atomic list.\n")
    (ruling,) = parse("decisions/kep.md", text).dead_ends
    assert ruling.reason.startswith("There are a few problems with using the FieldPath associated with the error "
                                    "to potentially ignore errors")
    # a lower-case `pros:` after a list of cons still ends them (qa167)
    listed = parse("decisions/kep.md", "# KEP\n## Alternatives\n### Polling\nPoll it.\n\nCons:\n- slow\n- costly\n"
                                       "pros: cheap\n")
    assert listed.dead_ends[0].reason == "slow; costly"
