"""Names and patterns every layer shares, in a module that imports nothing of ours: the CLI's
shell and the config need them before anything else is loaded (vault_engine.model, which
re-exports them, is a dozen dataclasses compiled at import)."""

import re

# C0 controls but tab and newline, DEL, and the C1 controls (U+009B alone starts an escape
# sequence): not text. A note must not hold them; a terminal must not be handed them.
CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Half of a UTF-16 pair: JSON's "\ud800" alone decodes to it, and no UTF-8 can write it (a
# checkpoint's text, an MCP answer's id: qa137, qa139).
LONE_SURROGATE = re.compile("[\ud800-\udfff]")

KINDS = ("checkpoint", "working-note", "spec", "memory", "decision", "notion", "note")
# Kinds a search can filter on: the notes' kinds, and ``code`` (a code tap's symbols, which
# no note can claim with ``type:``).
CODE_KIND = "code"
SEARCH_KINDS = (*KINDS, CODE_KIND)
# `find`'s tiers and its memory tier's facets (the MCP schema lists them as its choices)
FIND_TIERS = ("symbol", "path", "fuzzy", "memory")
FIND_FACETS = ("lifecycle", "data_state", "boundaries", "invariants", "failure")

# The smallest ``resume`` budget: its heading, the start of the last checkpoint and the line
# saying what was cut (`_Cut to fit N tokens (what went: --json `cut`)._`, 14 tokens, which
# may take at most half the budget). Below it a brief would be a cut heading saying nothing:
# refused as a usage error naming this minimum rather than answered with no brief at all.
MIN_BRIEF_TOKENS = 40

# Answers are fitted to a token budget by this estimate (no tokenizer is loaded for it)
CHARS_PER_TOKEN = 4

MAX_FOLLOW = 5  # hops of --follow: every shell offers 0..5 links away
