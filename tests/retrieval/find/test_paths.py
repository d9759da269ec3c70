"""Literal path lookup over a reversed-component trie (vault_engine/retrieval/find/paths.py)."""

import json
import random
from pathlib import Path

import pytest

from tests.conftest import needs_corpus
from vault_engine.retrieval.find.paths import (
    AMBIGUOUS,
    EXACT,
    MISS,
    SUFFIX,
    PathMatch,
    build_path_index,
    lookup_path,
    normalize_path,
)

PATHS = [
    "app/src/daemon.ts",
    "src/shop/orders.py",
    "src/zustand/src/middleware/persist.ts",
    "src/zustand/src/middleware/persist.tsx",
    "src/zustand/src/shallow.ts",
    "src/zustand/src/react/shallow.ts",
    "src/zustand/src/vanilla/shallow.ts",
    "src/click/src/click/__init__.py",
    "src/click/tests/test_utils/__init__.py",
    "tests/test_LazyFile.py",
    ".env",
    ".github/workflows/ci.yml",
    "docs/.obsidian/app.json",
    "meetings/2026-11-18 design review.md",
]


@pytest.fixture(scope="module")
def index():
    return build_path_index(PATHS)


def test_exact_full_path(index):
    assert lookup_path(index, "src/shop/orders.py") == PathMatch("src/shop/orders.py", EXACT, ("src/shop/orders.py",))
    assert lookup_path(index, "meetings/2026-11-18 design review.md").status == EXACT


def test_whole_trailing_components(index):
    assert lookup_path(index, "orders.py").paths == ("src/shop/orders.py",)
    assert lookup_path(index, "orders.py").status == SUFFIX
    assert lookup_path(index, "middleware/persist.ts").paths == ("src/zustand/src/middleware/persist.ts",)
    assert lookup_path(index, "src/daemon.ts").paths == ("app/src/daemon.ts",)
    assert lookup_path(index, "react/shallow.ts").paths == ("src/zustand/src/react/shallow.ts",)


def test_parts_of_components_never_match(index):
    assert lookup_path(index, "emon.ts") == PathMatch("emon.ts", MISS, ())
    assert lookup_path(index, "persist.ts").paths == ("src/zustand/src/middleware/persist.ts",)  # not .tsx
    assert lookup_path(index, "persist").status == MISS
    assert lookup_path(index, "rc/daemon.ts").status == MISS
    assert lookup_path(index, "daemon").status == MISS


def test_a_shared_basename_returns_every_file_shallowest_first(index):
    found = lookup_path(index, "shallow.ts")
    assert found.status == AMBIGUOUS
    assert found.paths == ("src/zustand/src/shallow.ts", "src/zustand/src/react/shallow.ts",
                           "src/zustand/src/vanilla/shallow.ts")
    assert lookup_path(index, "__init__.py").paths == ("src/click/src/click/__init__.py",
                                                       "src/click/tests/test_utils/__init__.py")


def test_an_exact_path_wins_over_longer_paths_ending_with_it():
    index = build_path_index(["src/daemon.ts", "app/src/daemon.ts"])
    assert lookup_path(index, "src/daemon.ts") == PathMatch("src/daemon.ts", EXACT, ("src/daemon.ts",))
    assert lookup_path(index, "daemon.ts").paths == ("src/daemon.ts", "app/src/daemon.ts")


def test_a_file_of_a_tap_outside_the_vault_is_found_by_its_path_in_its_repository():
    """`web:src/cart.js` was found by `cart.js` and missed by `src/cart.js` (qa57)."""
    index = build_path_index(["web:src/cart.js", "web:src/lib/cart.js", "src/cart.py"])
    assert lookup_path(index, "src/cart.js") == PathMatch("src/cart.js", SUFFIX, ("web:src/cart.js",))
    assert lookup_path(index, "web:src/cart.js").status == EXACT
    assert lookup_path(index, "web:cart.js").status == MISS  # a component is whole, the tap's too
    assert lookup_path(index, "cart.js").paths == ("web:src/cart.js", "web:src/lib/cart.js")


def test_absent_paths_are_never_extrapolated(index):
    for query in ["src/click/src/click/server.py", "src/zustand/src/middleware/graphqlSync.ts",
                  "shop/orders.pyc", "x/src/shop/orders.py", "orders", "", "/", ".", "./", "src/shop",
                  "../src/shop/orders.py", "src/../../src/shop/orders.py"]:
        assert lookup_path(index, query).status == MISS, query
        assert lookup_path(index, query).paths == ()


def test_windows_separators_dot_prefixes_and_trailing_slashes(index):
    assert lookup_path(index, "src\\shop\\orders.py").status == EXACT
    assert lookup_path(index, "middleware\\persist.ts").status == SUFFIX
    assert lookup_path(index, "./src/shop/orders.py").status == EXACT
    assert lookup_path(index, "././orders.py").status == SUFFIX
    assert lookup_path(index, ".\\orders.py").status == SUFFIX
    assert lookup_path(index, "src/shop/orders.py/").status == EXACT
    assert lookup_path(index, "src//shop/./orders.py").status == EXACT
    assert lookup_path(index, "src/../src/shop/orders.py").status == EXACT  # as refs read it (qa111)
    windows = build_path_index(["src\\shop\\orders.py", "./README.md", "docs/"])
    assert windows.paths == ("README.md", "docs", "src/shop/orders.py")  # code-point order
    assert lookup_path(windows, "shop/orders.py").paths == ("src/shop/orders.py",)


def test_dot_files_and_dot_folders(index):
    assert lookup_path(index, ".env") == PathMatch(".env", EXACT, (".env",))
    assert lookup_path(index, "./.env").status == EXACT
    assert lookup_path(index, "env").status == MISS
    assert lookup_path(index, "workflows/ci.yml").paths == (".github/workflows/ci.yml",)
    assert lookup_path(index, ".obsidian/app.json").paths == ("docs/.obsidian/app.json",)
    assert lookup_path(index, "obsidian/app.json").status == MISS


def test_a_leading_slash_anchors_at_the_root(index):
    assert lookup_path(index, "/src/shop/orders.py").status == EXACT
    assert lookup_path(index, "/src/daemon.ts").status == MISS  # app/src/daemon.ts is not at the root
    assert lookup_path(index, "\\orders.py").status == MISS


def test_case_sensitive_by_default(index):
    assert lookup_path(index, "Orders.py").status == MISS
    assert lookup_path(index, "tests/test_lazyfile.py").status == MISS
    assert lookup_path(index, "tests/test_LazyFile.py").status == EXACT


def test_case_insensitive_option_keeps_the_spelling():
    index = build_path_index(PATHS + ["README.md", "readme.md", "docs/Readme.md"], case_sensitive=False)
    assert lookup_path(index, "TESTS/test_lazyfile.PY") == PathMatch(
        "TESTS/test_lazyfile.PY", EXACT, ("tests/test_LazyFile.py",))
    assert lookup_path(index, "ORDERS.PY").paths == ("src/shop/orders.py",)
    assert lookup_path(index, "Readme.MD") == PathMatch("Readme.MD", AMBIGUOUS, ("README.md", "readme.md"))
    assert lookup_path(index, "readme.md").paths == ("readme.md",)  # spelled exactly: that one
    assert lookup_path(index, "docs/README.md").paths == ("docs/Readme.md",)
    assert lookup_path(index, "emon.TS").status == MISS


def test_normalize_path():
    assert normalize_path(".\\src\\a.py") == "src/a.py"
    assert normalize_path("a//b/./c/") == "a/b/c"
    assert normalize_path("../a") == "../a"
    assert normalize_path("./.env") == ".env"
    assert normalize_path("./") == "" and normalize_path("") == ""


def test_duplicates_collapse_and_the_index_reports_its_size():
    index = build_path_index(["a/b.py", "./a/b.py", "a\\b.py", "c.py"])
    assert len(index) == 2 and index.paths == ("c.py", "a/b.py")
    assert lookup_path(index, "b.py").paths == ("a/b.py",)
    assert len(build_path_index([])) == 0 and lookup_path(build_path_index([]), "a").status == MISS


@pytest.mark.corpus
def test_the_blind_path_queries_on_real_code_trees():
    """bench/data/eval/find_eval.jsonl, path tier and absent paths: code/click and code/zustand
    laid out as src/click/ and src/zustand/, as the evaluation set says."""
    code = needs_corpus("code")
    files = [f"src/{p.relative_to(code).as_posix()}" for tree in ("click", "zustand")
             for p in (code / tree).rglob("*") if p.is_file()]
    index = build_path_index(files)
    evalset = Path(__file__).resolve().parents[3] / "bench" / "data" / "eval" / "find_eval.jsonl"
    items = [json.loads(line) for line in evalset.read_text(encoding="utf-8").splitlines() if line.strip()]
    paths = [i for i in items if i["tier"] == "path" or i["tier"] == "miss" and i["query"].startswith("src/")]
    assert len(paths) == 19
    for item in paths:
        found = lookup_path(index, item["query"])
        assert set(found.paths) == set(item["expected"]), item["id"]
        assert found.status == (MISS if not item["expected"] else AMBIGUOUS if len(item["expected"]) > 1
                                else EXACT if item["query"] in files else SUFFIX), item["id"]


def test_clean_paths_skip_normalization_without_changing_it():
    rng = random.Random(5)
    for _ in range(3000):
        path = "".join(rng.choice(["a", "b.py", ".", "..", "/", "\\", ".env", "/", "x"]) for _ in range(rng.randint(0, 7)))
        parts: list[str] = []
        for p in path.replace("\\", "/").split("/"):
            if p == ".." and parts and parts[-1] != "..":
                parts.pop()
            elif p and p != ".":
                parts.append(p)
        assert normalize_path(path) == "/".join(parts), path
