"""Ctrl-C anywhere in a command (vault_engine/cli/main.py): one line, exit 130, and the
process ends without finalizing the interpreter. A Ctrl-C inside `import faiss` or while the
query model opened on its thread aborted the process at exit (134, 5 of 15 interrupts of a
cold `search --semantic`, qa41); one while the index closed after the answer printed a
traceback. Run in a fresh interpreter: leaving at once would end the test run itself."""

import subprocess
import sys

import pytest

from tests.conftest import terminal_signals

INTERRUPT_IN = """
import atexit, sys
from vault_engine.vault import Vault
def interrupt(*args, **kwargs):
    raise KeyboardInterrupt
setattr(Vault, sys.argv[2], interrupt)
atexit.register(lambda: print("finalized", file=sys.stderr))  # skipped when leaving at once
from vault_engine.cli.main import main
sys.exit(main(["--vault", sys.argv[1], "--no-daemon", "search", "kafka", "--lexical"]))
"""


@pytest.mark.parametrize("where", ["search", "close"])  # in the command, or closing after it
def test_ctrl_c_says_interrupted_and_exits_130_without_finalizing(make_vault, where):
    root = make_vault({"a.md": "# A\n\nkafka topics\n"})
    subprocess.run([sys.executable, "-m", "vault_engine", "--vault", str(root), "index", "--no-embed"],
                   check=True, capture_output=True)
    done = subprocess.run([sys.executable, "-c", INTERRUPT_IN, str(root), where],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 130, done.stderr
    assert done.stderr.strip().endswith("vault-engine: interrupted"), done.stderr
    assert "Traceback" not in done.stderr and "finalized" not in done.stderr


INDEX_STOPPED_BY_CTRL_C = """
import os, signal, sys, time
from vault_engine.model import IndexReport
from vault_engine.vault import Vault
def index(self, **kwargs):
    try:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(10)
    except KeyboardInterrupt:  # as the embedding stops on Ctrl-C, keeping its work
        return IndexReport(embedded=3, notices=("embedding stopped: 3 sections embedded and kept, 2 to go",))
    return IndexReport()
Vault.index = index
from vault_engine.cli.main import main
sys.exit(main(["--vault", sys.argv[1], "index"]))
"""


def test_an_index_whose_embedding_ctrl_c_stopped_reports_its_work_and_exits_130(make_vault):
    """It printed its report and exited 0, so `vault-engine index && ...` went on (qa43)."""
    root = make_vault({"a.md": "# A\n\nkafka topics\n"})
    done = subprocess.run([sys.executable, "-c", INDEX_STOPPED_BY_CTRL_C, str(root)], preexec_fn=terminal_signals,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 130, done.stderr
    assert "3 sections embedded and kept" in done.stderr and done.stdout.strip()
    assert done.stderr.strip().endswith("vault-engine: interrupted")


INTERRUPT_WHILE_LOADING = """
import atexit, sys
class Interrupting:  # Ctrl-C while the CLI's modules load
    def find_spec(self, name, path=None, target=None):
        if name == "vault_engine.cli.daemon_client":
            raise KeyboardInterrupt
sys.meta_path.insert(0, Interrupting())
atexit.register(lambda: print("finalized", file=sys.stderr))
from vault_engine.cli.entry import main
sys.exit(main(["--help"]))
"""


def test_ctrl_c_while_the_cli_loads_is_one_line_too():
    """The console script's first 50 ms printed a traceback."""
    done = subprocess.run([sys.executable, "-c", INTERRUPT_WHILE_LOADING], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr, done.stdout) == (130, "vault-engine: interrupted\n", "")


def test_the_console_script_starts_at_the_guarded_entry_point():
    from importlib.metadata import entry_points

    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "vault-engine"]
    assert script.value == "vault_engine.cli.entry:main"


SWALLOWED = """
import os, signal, sys
from vault_engine.vault import Vault
real = Vault.search
def search(self, *args, **kwargs):
    try:  # as pybind11 does, turning a Ctrl-C inside ONNX Runtime's import into an ImportError
        os.kill(os.getpid(), signal.SIGINT)
    except KeyboardInterrupt:
        pass
    return real(self, *args, **kwargs)
Vault.search = search
from vault_engine.cli.main import main
sys.exit(main(["--vault", sys.argv[1], "--no-daemon", "search", "kafka", "--lexical"]))
"""


def test_a_ctrl_c_a_library_swallowed_still_exits_130(make_vault):
    """4-6 of 50 Ctrl-Cs 0.15-0.22 s into a hybrid search printed the answer and exited 0 (qa46)."""
    root = make_vault({"a.md": "# A\n\nkafka topics\n"})
    subprocess.run([sys.executable, "-m", "vault_engine", "--vault", str(root), "index", "--no-embed"],
                   check=True, capture_output=True)
    done = subprocess.run([sys.executable, "-c", SWALLOWED, str(root)], capture_output=True, text=True, timeout=120,
                          preexec_fn=terminal_signals)
    assert done.returncode == 130 and done.stderr.strip().endswith("vault-engine: interrupted"), done.stderr
    assert "a.md" in done.stdout  # the command ran to its end first


ONNX_INIT_INTERRUPTED = """
import sys
class Interrupted:  # what pybind11 makes of a Ctrl-C inside a module's initialization
    def find_spec(self, name, path=None, target=None):
        if name == "onnxruntime":
            raise ImportError("initialization failed") from KeyboardInterrupt()
sys.meta_path.insert(0, Interrupted())
from vault_engine.stores.query_encoder import import_onnxruntime
try:
    import_onnxruntime()
except KeyboardInterrupt:
    print("interrupted")
"""


def test_a_ctrl_c_inside_onnx_runtimes_import_is_no_missing_onnx_runtime():
    done = subprocess.run([sys.executable, "-c", ONNX_INIT_INTERRUPTED], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "interrupted", done.stderr


WORKER_INTERRUPTED = """
import multiprocessing, os, signal, sys, time
from vault_engine import locks
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
locks.hold_in_parent_only(fd)  # as the writer does while Whoosh's writers work
worker = multiprocessing.get_context("fork").Process(target=time.sleep, args=(60,))
worker.start()
time.sleep(0.5)
os.kill(worker.pid, signal.SIGINT)  # a terminal sends Ctrl-C to the whole process group
worker.join(20)
print(worker.exitcode)
"""


def test_a_worker_forked_by_the_writer_ends_at_ctrl_c_without_a_traceback(tmp_path):
    """Ctrl-C during `index --rebuild`: each of Whoosh's writers printed the traceback of its
    KeyboardInterrupt, 40-53 lines under the parent's one (qa195)."""
    done = subprocess.run([sys.executable, "-c", WORKER_INTERRUPTED, str(tmp_path / "write.lock")],
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "130"
    assert "Traceback" not in done.stderr and "KeyboardInterrupt" not in done.stderr, done.stderr


THREAD_AFTER_CTRL_C = """
import sys, threading
from vault_engine.cli.main import interrupts_noted
with interrupts_noted() as noted:
    if sys.argv[1] == "interrupted":
        noted.append(2)  # as the SIGINT handler notes it
    failing = threading.Thread(target=lambda: 1 / 0)
    failing.start()
    failing.join()
"""


@pytest.mark.parametrize("state", ["interrupted", "running"])
def test_a_threads_error_after_a_ctrl_c_is_not_printed_over_the_one_line(state):
    """Ctrl-C early in `index`: a process pool's own thread, its workers gone, printed the
    traceback of its cancelled futures above `vault-engine: interrupted` (qa198); an error of a
    thread while nothing was interrupted is printed as ever."""
    done = subprocess.run([sys.executable, "-c", THREAD_AFTER_CTRL_C, state], capture_output=True, text=True,
                          timeout=60)
    assert ("ZeroDivisionError" in done.stderr) == (state == "running"), done.stderr
