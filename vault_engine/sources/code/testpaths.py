"""Which files are tests (``--exclude-tests``): a module of its own so that a query can ask
without importing the resolvers."""

from __future__ import annotations

import re

TEST_FOLDERS = frozenset({"tests", "test", "__tests__"})
TEST_FILE = re.compile(r"^(?:test_.*\.py|conftest\.py|.*_test\.[^.]+|.*\.(?:test|spec)\.[^.]+)$")


def is_test_path(path: str) -> bool:
    """Tests: files in a ``tests/``, ``test/`` or ``__tests__/`` folder at any depth, and
    ``test_*.py``, ``conftest.py``, ``*_test.*``, ``*.test.*``, ``*.spec.*`` files."""
    parts = [p for p in path.split("#", 1)[0].split("/") if p and p != "."]  # str ops: called per name
    return any(p in TEST_FOLDERS for p in parts[:-1]) or bool(parts and TEST_FILE.match(parts[-1]))
