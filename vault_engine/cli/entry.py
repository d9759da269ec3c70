"""The ``vault-engine`` console script's entry point (and ``python -m vault_engine``'s).

The CLI's own modules take about 50 ms to load; a Ctrl-C then printed a traceback, where
anywhere later it ends as one line and exit 130 (:func:`vault_engine.cli.main.main`). This
module loads nothing else before it can say so too.
"""

from __future__ import annotations

from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    try:
        from vault_engine.cli.main import main as run
    except KeyboardInterrupt:
        from vault_engine.cli.context import interrupted

        interrupted()
    return run(argv)
