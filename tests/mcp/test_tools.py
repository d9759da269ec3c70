"""Tool definitions and one call (vault_engine/mcp/tools.py) on a real Vault, without a server."""

from __future__ import annotations

import json

import pytest

from vault_engine.mcp.tools import DEFAULT_MAX_TOKENS, answer, input_schema, tool_definitions
from vault_engine.operations import BY_NAME, OPERATIONS
from vault_engine.vault import Vault


@pytest.fixture
def vault(indexed_sample):
    with Vault(indexed_sample) as v:
        yield v


def test_one_tool_per_row_with_a_closed_schema():
    tools = tool_definitions()
    assert [t["name"] for t in tools] == [op.name for op in OPERATIONS]
    for tool in tools:
        assert tool["inputSchema"]["additionalProperties"] is False
        assert "max_tokens" in tool["inputSchema"]["properties"]


def test_schema_carries_types_ranges_and_defaults():
    props = input_schema(BY_NAME["search"])["properties"]
    assert props["k"] == {"type": "integer", "description": "number of hits", "minimum": 1, "maximum": 1000, "default": 10}
    assert props["lexical"]["type"] == "boolean"
    assert input_schema(BY_NAME["checkpoint_new"])["properties"]["failed"]["type"] == "array"
    assert input_schema(BY_NAME["search"])["required"] == ["query"]
    assert "required" not in input_schema(BY_NAME["status"])


def test_schema_lists_closed_choices_and_a_failed_items_keys():
    """qa81: `kind`, `tier` and `facet` were plain strings, a Failed item an object of no keys,
    and a list given as one string (taken as one item) contradicted the schema unsaid."""
    from vault_engine.constants import SEARCH_KINDS

    assert input_schema(BY_NAME["search"])["properties"]["kind"]["enum"] == list(SEARCH_KINDS)
    find = input_schema(BY_NAME["find"])["properties"]
    assert find["tier"]["enum"] == ["symbol", "path", "fuzzy", "memory"]
    assert find["facet"]["enum"] == ["lifecycle", "data_state", "boundaries", "invariants", "failure"]
    assert "enum" not in input_schema(BY_NAME["search"])["properties"]["tap"]  # a vault names its taps
    failed = input_schema(BY_NAME["checkpoint_new"])["properties"]["failed"]
    item = failed["items"]["anyOf"][1]
    assert item["properties"] == {"text": {"type": "string"}, "reason": {"type": "string"}}
    assert item["additionalProperties"] is False and failed["description"].endswith("(or one string)")


def test_an_answer_is_the_json_and_its_text(vault):
    done = answer("search", {"query": "second microphone", "lexical": True, "k": 2}, vault)
    assert not done.error and json.loads(done.text) == done.data
    direct = vault.search("second microphone", k=2, lexical_only=True).to_json()
    assert done.data.keys() == direct.keys()  # scores decay between two calls: compare the rest
    assert [h["ref"] for h in done.data["hits"]] == [h["ref"] for h in direct["hits"]] and len(direct["hits"]) == 2


def test_resume_fits_its_own_budget_and_others_the_default(vault):
    brief = answer("resume", {"project": "drone-audio", "max_tokens": 300}, vault)
    assert "truncated" not in brief.data and len(brief.data["markdown"]) <= 300 * 4
    listed = answer("deadend_list", {}, vault)
    assert len(listed.text) <= DEFAULT_MAX_TOKENS * 4


def test_a_resume_brief_is_never_cut_again_so_its_json_and_markdown_agree(vault):
    """Its JSON (fields and Markdown) was cut to the 4,000-token default, losing earlier dead
    ends the Markdown beside it still listed (qa37 N7)."""
    brief = answer("resume", {"project": "billing-service"}, vault)
    assert len(brief.text) > DEFAULT_MAX_TOKENS * 4  # over the default cap, so a cut would show
    assert "truncated" not in brief.data and brief.data["cut"] == []
    earlier = brief.data["dead_ends_earlier"]
    assert len(earlier) >= 5 and all(d["text"] in brief.data["markdown"] for d in earlier)
    assert brief.data == vault.resume("billing-service").to_json()


def test_a_user_error_is_one_line_naming_the_tool(vault):
    done = answer("show", {"ref": "nowhere.md"}, vault)
    assert done.error and done.data is None
    assert done.text.startswith("show: no note 'nowhere.md' in the index") and "\n" not in done.text


@pytest.mark.parametrize(("name", "arguments", "said"), [
    ("status", {"verbose": True}, "status: unknown argument 'verbose'; it takes: max_tokens"),
    ("search", {"query": "x", "limit": 3},
     "search: unknown argument 'limit'; it takes: query, k, kind, project, tap, lexical, semantic, follow, "
     "no_decay, exclude_tests, max_tokens"),
    ("resume", {"project": "drone-audio", "limit": 3}, "resume: unknown argument 'limit'; it takes: project, max_tokens"),
])
def test_an_unknown_argument_lists_every_one_the_tool_takes(vault, name, arguments, said):
    assert answer(name, arguments, vault).text == said


@pytest.mark.parametrize(("name", "arguments"), [
    ("deadend_list", {"project": ""}), ("search", {"query": "x", "project": ""}),
    ("deadend_check", {"proposal": "keep sessions in Redis", "project": " "}), ("resume", {"project": ""}),
])
def test_an_empty_project_is_said_to_be_empty_by_every_tool(vault, name, arguments):
    assert answer(name, arguments, vault).text.startswith(f"{name}: project must not be empty")


def test_a_resume_budget_too_small_for_the_cut_line_is_refused_naming_the_minimum(vault):
    assert input_schema(BY_NAME["resume"])["properties"]["max_tokens"]["minimum"] == 40
    done = answer("resume", {"project": "drone-audio", "max_tokens": 5}, vault)
    assert done.error and done.text == "resume: max_tokens 5 is out of range: use 40 or more"
    done = answer("resume", {"project": "drone-audio", "max_tokens": 40}, vault)
    assert done.data["markdown"].rstrip().splitlines()[-1].startswith("_Cut to fit 40 tokens")


def test_a_resume_answer_stays_within_four_times_its_budget(make_vault):
    """A goal far longer than the brief is kept whole in the JSON when the text shows its
    start: the answer is capped at four times the brief's budget, and says what it cut."""
    goal = "Keep the goal " + "very long " * 4000
    text = ("---\ntype: checkpoint\nproject: p\n---\n# C\n## Summary\nDone.\n## Goal\n" + goal +
            "\n## Next\n- Go on\n## Failed\n- A -- b\n")
    root = make_vault({"projects/p/checkpoints/20261201T083000Z-me.md": text}, config="[model]\nenabled = false\n")
    with Vault(root) as v:
        v.index()
        done = answer("resume", {"project": "p", "max_tokens": 2000}, v)
    assert len(done.text) <= 4 * 2000 * 4 and done.data["truncated"]["cut"], done.data.get("truncated")


def test_an_agent_with_mcp_alone_can_bring_a_stale_index_up_to_date(vault):
    """A note saved outside the session: the answer said to run `vault-engine index`, which an
    agent with MCP alone could not do (qa54)."""
    (vault.root / "notes").mkdir(exist_ok=True)
    (vault.root / "notes" / "okapi.md").write_text("# Okapi\nThe quokka zeppelin manifest lives here.\n")
    stale = answer("search", {"query": "quokka zeppelin manifest", "lexical": True}, vault).data
    assert stale["status"] == "miss" and any("index is stale" in n for n in stale["notices"])
    done = answer("index", {"no_embed": True}, vault)
    assert not done.error and done.data["new"] == 1
    fresh = answer("search", {"query": "quokka zeppelin manifest", "lexical": True}, vault).data
    assert fresh["hits"][0]["ref"].startswith("notes/okapi.md") and not fresh["notices"]
