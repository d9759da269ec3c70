"""The ``vault-engine`` console script's entry point (and ``python -m vault_engine``'s).

The CLI's own modules take about 50 ms to load; a Ctrl-C then printed a traceback, where
anywhere later it ends as one line and exit 130 (:func:`vault_engine.cli.main.main`). This
module loads nothing else before it can say so too.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    _closed_streams_to_devnull()
    try:
        from vault_engine.cli.main import main as run
    except KeyboardInterrupt:
        from vault_engine.cli.context import interrupted

        interrupted()
    return run(argv)


def _closed_streams_to_devnull() -> None:
    """A command started with stdin, stdout or stderr closed (a launcher or cron job that
    closes them: Python then has no such stream) reads nothing and writes nowhere, as with
    /dev/null; it had raised a traceback, and a hook exited 1 (qa98)."""
    for name, mode in (("stdin", "r"), ("stdout", "w"), ("stderr", "w")):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, mode, encoding="utf-8"))  # noqa: SIM115 - for the process's life
