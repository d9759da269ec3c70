"""Searches while another process rebuilds or re-indexes: never an error, never a false miss.

Reader processes loop on searches whose answer is known (marker notes), each search from a
fresh Vault as a CLI call would make it, or from one Vault kept open as a daemon or the TUI
keeps it. Meanwhile the CLI runs ``index --rebuild`` (a new generation swapped in) and an
incremental ``index`` that rewrites every note in place (Whoosh commits under readers).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from tests.conftest import run_cli_subprocess
from tests.faults.conftest import NOTES, cli_json, healthy

MARKERS = {f"faults/marker-{i}.md": word for i, word in
           enumerate(["quokkaflux", "zirconblade", "mangrovetide", "copperlantern", "velvetorbit"])}

READER = """
import json, sys, time
from pathlib import Path
from vault_engine.vault import Vault

root, stop, fresh = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] == "1"
markers = json.loads(sys.argv[4])
searches, errors, misses = 0, [], []
kept = None if fresh else Vault(root)
while not stop.exists():
    for path, word in markers.items():
        vault = Vault(root) if fresh else kept
        try:
            hits = vault.search(word, lexical_only=True, k=5).hits
            if path not in [h.path for h in hits]:
                misses.append([word, [h.path for h in hits]])
        except Exception as exc:
            errors.append(f"{type(exc).__name__}: {exc}"[:300])
        finally:
            if fresh:
                vault.close()
        searches += 1
print(json.dumps({"fresh": fresh, "searches": searches, "errors": errors[:5], "error_count": len(errors),
                  "misses": misses[:5], "miss_count": len(misses)}))
"""


@pytest.fixture
def marked_vault(generated_vault):
    for path, word in MARKERS.items():
        (generated_vault / path).parent.mkdir(exist_ok=True)
        (generated_vault / path).write_text(f"# Marker\n\nThis note is about {word}.\n", encoding="utf-8")
    cli_json(generated_vault, "index")
    return generated_vault


def start_readers(root, tmp_path, modes=(True, True, False)):
    stop = tmp_path / "stop-readers"
    procs = [subprocess.Popen([sys.executable, "-c", READER, str(root), str(stop), "1" if fresh else "0",
                               json.dumps(MARKERS)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for fresh in modes]
    return stop, procs


def stop_readers(stop, procs) -> list[dict]:
    stop.touch()
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err[-2000:]
        results.append(json.loads(out.splitlines()[-1]))
    return results


def assert_clean(results: list[dict]) -> None:
    for result in results:
        assert result["searches"] > 0
        assert result["error_count"] == 0, result
        assert result["miss_count"] == 0, result


def test_searches_during_rebuilds_see_the_old_index_or_the_new(marked_vault, tmp_path):
    stop, procs = start_readers(marked_vault, tmp_path)
    time.sleep(0.5)
    for _ in range(2):
        done = run_cli_subprocess("--vault", marked_vault, "index", "--rebuild", timeout=300)
        assert done.returncode == 0, done.stderr
    time.sleep(0.5)
    assert_clean(stop_readers(stop, procs))
    status = cli_json(marked_vault, "status")
    assert healthy(status) and status["notes"] == NOTES + len(MARKERS)


def test_searches_during_an_incremental_index_of_every_note(marked_vault, tmp_path):
    stop, procs = start_readers(marked_vault, tmp_path)
    for round_ in range(2):
        for note in sorted(marked_vault.rglob("*.md")):
            note.write_text(note.read_text(encoding="utf-8") + f"\nround {round_} of edits.\n",
                            encoding="utf-8")
        done = run_cli_subprocess("--vault", marked_vault, "index", timeout=300)
        assert done.returncode == 0, done.stderr
    assert_clean(stop_readers(stop, procs))
    assert healthy(cli_json(marked_vault, "status"))
