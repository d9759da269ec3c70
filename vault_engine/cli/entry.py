"""The ``vault-engine`` console script's entry point (and ``python -m vault_engine``'s).

The CLI's own modules take about 50 ms to load; a Ctrl-C then printed a traceback, where
anywhere later it ends as one line and exit 130 (:func:`vault_engine.cli.main.main`). This
module loads nothing else before it can say so too.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    lost = _closed_streams_to_devnull()
    try:
        from vault_engine.cli.main import main as run
        from vault_engine.cli.main import names_hook
    except KeyboardInterrupt:
        from vault_engine.cli.context import interrupted

        interrupted()
    code = run(argv)
    if lost is not None and lost.written and code == 0 and not names_hook(list(argv or sys.argv[1:])):
        # the answer went nowhere: a script reading the exit code must not take it for one
        # (as `ls >&-` says "write error"; a hook never fails the person, qa100)
        print("vault-engine: standard output is closed: the answer was not written", file=sys.stderr)
        return 1
    return code


class _Nowhere(io.TextIOWrapper):
    """/dev/null for a closed stdout, remembering whether anything was written to it."""

    written = False

    def write(self, text: str) -> int:
        self.written = self.written or bool(text)
        return super().write(text)


def _closed_streams_to_devnull() -> _Nowhere | None:
    """A command started with stdin, stdout or stderr closed (a launcher or cron job that
    closes them: Python then has no such stream) reads nothing and writes nowhere, as with
    /dev/null; it had raised a traceback, and a hook exited 1 (qa98). Returns the stand-in for
    a closed stdout, if it was."""
    lost = None
    if sys.stdin is None:
        sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - for the process's life
    if sys.stdout is None:
        sys.stdout = lost = _Nowhere(open(os.devnull, "wb"), encoding="utf-8")  # noqa: SIM115
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    return lost
