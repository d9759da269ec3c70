"""The fault matrix (issue 20): ``fault_matrix.py [--notes N] [--write]``.

For each fault, on a fresh copy of a generated vault indexed words only: make the fault,
then record what ``status`` said (its first damage line, or the watcher line), what
``search`` did (exit code), and how long the plain ``index`` that repairs it took, and that
``status`` agrees afterwards. The damage kinds are the fault suite's own
(tests/faults/test_damage.py), so the matrix and the tests describe the same faults.
``--write`` puts the table into bench/RESULTS.md between ``<!-- faults -->`` markers.
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import common  # noqa: E402
from gen_vault import generate  # noqa: E402

from tests.faults.test_damage import LEXICAL_DAMAGE  # noqa: E402  (the suite's fault table)

WORDS_ONLY = "[model]\nenabled = false\n"
QUERY = "drop test"


def cli(root: Path, *args: str) -> tuple[int, dict | None, str, float]:
    started = time.perf_counter()
    done = subprocess.run([*common.cli_command(), "--vault", str(root), *args, "--json"],
                          capture_output=True, text=True, timeout=600)
    seconds = time.perf_counter() - started
    try:
        data = json.loads(done.stdout) if done.stdout.strip() else None
    except ValueError:
        data = None
    return done.returncode, data, done.stderr.strip(), seconds


def status_line(root: Path) -> str:
    code, data, err, _ = cli(root, "status")
    if code != 0 or data is None:
        return f"exit {code}: {err.splitlines()[-1] if err else ''}"
    if data.get("damage"):
        return data["damage"][0]
    if not data.get("lexical", {}).get("agrees", True):
        return "lexical index disagrees with the ledger"
    return "healthy" if data.get("notes") else f"{data.get('notes')} notes"


def repair(root: Path) -> tuple[str, float, str]:
    code, data, err, seconds = cli(root, "index")
    notices = (data or {}).get("notices") or []
    after = status_line(root)
    return (f"exit {code}" + (f"; {notices[0][:90]}" if notices else "")), seconds, after


def killed_index(root: Path) -> None:
    """`index --rebuild` killed with SIGKILL half a second in."""
    proc = subprocess.Popen([*common.cli_command(), "--vault", str(root), "index", "--rebuild"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    proc.send_signal(signal.SIGKILL)
    proc.wait()


FAULTS = {**LEXICAL_DAMAGE, "index --rebuild killed (SIGKILL at 0.5 s)": killed_index}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=2000)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="vault-engine-faults-"))
    source = work / "source"
    generate(source, args.notes, seed=20)
    (source / "vault-engine.toml").write_text(WORDS_ONLY, encoding="utf-8")
    code, _, err, first = cli(source, "index")
    assert code == 0, err
    rows = []
    for name, make in FAULTS.items():
        root = work / "copy"
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(source, root, symlinks=True)
        make(root)
        said = status_line(root)
        search_code = cli(root, "search", QUERY, "--lexical")[0]
        fixed, seconds, after = repair(root)
        rows.append([name, said[:110], f"exit {search_code}", fixed, f"{seconds:.2f}", after])
        print(" | ".join(rows[-1]), flush=True)
    shutil.rmtree(work, ignore_errors=True)
    table = common.markdown_table(
        ["fault", "what `status` said", "`search`", "what repaired it (`index`)", "repair s", "status after"], rows)
    body = (f"{common.machine_line()}; a generated vault of {args.notes} notes, words only; "
            f"first index {first:.1f} s. `python bench/fault_matrix.py --write`\n\n{table}\n")
    print(body)
    if args.write:
        common.write_section("faults", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
