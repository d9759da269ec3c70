"""bench/run_all.py: finds the scripts with a main() and runs each in a fresh interpreter."""

from __future__ import annotations

import json

import run_all

RECORDING_MAIN = '''
import json, sys
from pathlib import Path
def main({params}):
    Path(__file__).with_suffix(".ran").write_text(json.dumps({record}))
    return {code}
'''


def script(folder, name, params="argv=None", record="argv", code=0, extra=""):
    path = folder / f"{name}.py"
    path.write_text(extra + RECORDING_MAIN.format(params=params, record=record, code=code))
    return path


def test_only_scripts_with_a_top_level_main_are_benchmarks(tmp_path):
    script(tmp_path, "eval_b")
    script(tmp_path, "bench_core")
    script(tmp_path, "common")  # a helper, even with a main
    (tmp_path / "no_main.py").write_text("def run():\n    pass\n")
    (tmp_path / "nested.py").write_text("class X:\n    def main(self):\n        pass\n")
    found = [p.stem for p in run_all.find_benchmarks(tmp_path)]
    assert found == ["bench_core", "eval_b"]


def test_the_real_bench_folder_lists_this_benchmark_first():
    found = [p.stem for p in run_all.find_benchmarks()]
    assert found[0] == "bench_core"
    assert not set(found) & run_all.HELPERS


def test_write_is_passed_only_to_scripts_that_have_the_option(tmp_path):
    writes = script(tmp_path, "writes", extra='HELP = "--write"\n')
    silent = script(tmp_path, "silent")
    no_args = script(tmp_path, "no_args", params="", record="sys.argv[1:]")
    for path in (writes, silent, no_args):
        code, seconds = run_all.run_one(path, write=True)
        assert code == 0 and seconds > 0
    assert json.loads(writes.with_suffix(".ran").read_text()) == ["--write"]
    assert json.loads(silent.with_suffix(".ran").read_text()) == []
    assert json.loads(no_args.with_suffix(".ran").read_text()) == []


def test_a_failing_benchmark_is_reported_and_the_rest_still_run(tmp_path, monkeypatch, capsys):
    script(tmp_path, "a_fails", code=3)
    script(tmp_path, "b_passes")
    monkeypatch.setattr(run_all, "BENCH_DIR", tmp_path)
    assert run_all.main(["--no-write"]) == 1
    assert (tmp_path / "b_passes.ran").exists()
    summary = capsys.readouterr().out.split("=== summary")[1]
    assert "a_fails" in summary and "exit 3" in summary and "b_passes" in summary
