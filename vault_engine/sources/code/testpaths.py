"""Which files are tests (``--exclude-tests``): a module of its own so that a query can ask
without importing the resolvers."""

from __future__ import annotations

import re

TEST_FOLDERS = frozenset({"tests", "test", "__tests__"})
TEST_FILE = re.compile(r"^(?:test_.*\.py|conftest\.py|.*_test\.[^.]+|.*\.(?:test|spec)\.[^.]+)$")


def is_test_path(path: str) -> bool:
    """Tests: files in a ``tests/``, ``test/`` or ``__tests__/`` folder at any depth, and
    ``test_*.py``, ``conftest.py``, ``*_test.*``, ``*.test.*``, ``*.spec.*`` files. A key of a
    tap outside the vault (``code:tests/x.py``) is read by its path under the tap's root: its
    ``tests/`` had passed for a folder named ``code:tests`` (qa88)."""
    path = path.split("#", 1)[0]
    head, colon, rest = path.partition(":")
    path = rest if colon and "/" not in head else path
    parts = [p for p in path.split("/") if p and p != "."]  # str ops: called per name
    return any(p in TEST_FOLDERS for p in parts[:-1]) or bool(parts and TEST_FILE.match(parts[-1]))
