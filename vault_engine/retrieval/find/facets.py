"""The memory tier's names and thresholds, apart from the tier itself: the router checks a
``--facet`` and passes the defaults without importing the BM25 side (a symbol or path query
never needs it)."""

from vault_engine.constants import FIND_FACETS

FACETS = FIND_FACETS  # the MCP schema lists them too (constants)
MEMORY_KIND = "memory"
DEFAULT_MIN_COVERAGE = 0.20  # chosen on the dev half of bench/data/eval/find_eval.jsonl (find_lab.py)
DEFAULT_RANKING = "bm25"  # or "coverage": the note holding most of the question first (bench/find_lab.py)
