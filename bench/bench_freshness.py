"""What the TUI's one-second poll costs (issue 19): ``bench_freshness.py [--notes 1000 10000] [--write]``.

``Vault.freshness`` (one stat per note, the ledger's last index, the watcher's state) is
called on a thread of the TUI every second; this times it on generated vaults (bench/
gen_vault.py, indexed by words) against ``Vault.status``, which the header used to run every
30 s. Medians of 20 calls after one warm-up (the page cache warm, as it is in a session).
``--write`` puts the table into bench/RESULTS.md between ``<!-- freshness -->`` markers.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402  (bench/ is not a package: scripts run by path)
from gen_vault import generate  # noqa: E402

MARKER = "freshness"
CALLS = 20


def median_ms(fn, calls: int = CALLS) -> float:
    fn()
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def measure(notes: int) -> tuple[int, float, float]:
    from vault_engine.vault import Vault

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "vault"
        generate(root, notes, seed=19)
        (root / "vault-engine.toml").write_text("[model]\nenabled = false\n", encoding="utf-8")
        with Vault(root) as vault:
            vault.index(embed=False)
            return notes, median_ms(vault.freshness), median_ms(vault.status, calls=5)


def table(rows: list[tuple[int, float, float]]) -> str:
    lines = ["## TUI freshness poll (Vault.freshness each second; medians)", "",
             "| notes | freshness (ms) | status (ms) | poll every (s) |", "|---:|---:|---:|---:|"]
    lines += [f"| {n:,} | {f:.1f} | {s:.1f} | {max(1.0, f / 1000 / 0.1):.1f} |" for n, f, s in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--write", action="store_true", help="update bench/RESULTS.md")
    args = parser.parse_args()
    text = table([measure(n) for n in args.notes])
    print(text)
    if args.write:
        common.write_section(MARKER, text)


if __name__ == "__main__":
    main()
