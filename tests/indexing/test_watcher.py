"""The watcher (vault_engine/indexing/watcher.py): the pure debouncer, event filtering, and
the real watchdog observer feeding real bursts into a real Vault (SQLite + Whoosh)."""

from __future__ import annotations

import os
import queue
import threading
import time

import pytest
from watchdog.events import (
    DirModifiedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileOpenedEvent,
)

from vault_engine.config import parse_config
from vault_engine.indexing.watcher import (
    IDLE_WORK,
    RESCAN,
    STOP,
    ChangeFeed,
    Debouncer,
    Settle,
    event_paths,
    watch_loop,
)
from vault_engine.vault import Vault

# -- the debouncer (pure: the clock is a parameter) ------------------------------------------


def test_events_within_the_quiet_period_make_one_burst():
    d = Debouncer(quiet=0.1, max_wait=1.0)
    assert d.wait_time(0.0) is None  # nothing pending: block
    d.add([".note.md.tmp"], 10.00)  # an editor's atomic save: temp write...
    d.add([".note.md.tmp", "note.md"], 10.01)  # ...then a rename
    assert not d.due(10.10)
    assert d.wait_time(10.05) == pytest.approx(0.06)
    assert d.due(10.11)
    burst = d.take()
    assert burst.paths == {".note.md.tmp", "note.md"}
    assert (burst.first_event, burst.last_event, burst.events) == (10.00, 10.01, 2)
    assert d.pending == 0 and d.wait_time(11.0) is None


def test_a_long_stream_is_applied_after_max_wait():
    d = Debouncer(quiet=0.1, max_wait=1.0)
    for step in range(30):  # a checkout writing a file every 50 ms never goes quiet
        d.add([f"f{step}.md"], 5.0 + step * 0.05)
        if d.due(5.0 + step * 0.05):
            break
    assert step == 20  # due exactly when the first event is max_wait old
    assert len(d.take().paths) == 21


def test_rescan_request_makes_a_burst_of_its_own():
    d = Debouncer(quiet=0.1)
    d.request_rescan(1.0)
    assert d.pending == 1 and d.due(1.1)
    burst = d.take()
    assert burst.rescan and not burst.paths


def test_empty_events_do_not_start_a_burst():
    d = Debouncer()
    d.add([], 1.0)
    assert d.oldest is None and d.wait_time(2.0) is None


# -- events to paths ---------------------------------------------------------------------------


@pytest.fixture
def config(tmp_path):
    return parse_config(tmp_path, {"exclude": ["templates/**", "drafts"]})


def test_event_paths_keeps_both_sides_of_a_move_and_marks_folders(config):
    root = str(config.root)
    assert event_paths(config, FileMovedEvent(f"{root}/a.md", f"{root}/b/a.md")) == ["a.md", "b/a.md"]
    assert event_paths(config, DirMovedEvent(f"{root}/old", f"{root}/new")) == ["old/", "new/"]
    assert event_paths(config, FileCreatedEvent(f"{root}/img.png")) == ["img.png"]


@pytest.mark.parametrize("rel", [".obsidian/workspace.json", ".git/index", ".vault-engine/index/x",
                                 ".trash/old.md", "templates/t.md", "drafts/x.md", "a/.git/HEAD"])
def test_event_paths_drops_ignored_and_excluded_paths(config, rel):
    assert event_paths(config, FileModifiedEvent(f"{config.root}/{rel}")) == []


def test_event_paths_drops_reads_folder_touches_and_outside_paths(config):
    root = str(config.root)
    assert event_paths(config, FileOpenedEvent(f"{root}/a.md")) == []  # our own reads
    assert event_paths(config, FileClosedEvent(f"{root}/a.md")) == []
    assert event_paths(config, DirModifiedEvent(f"{root}/sub")) == []
    assert event_paths(config, FileCreatedEvent("/elsewhere/a.md")) == []


# -- the loop (real queue, real threads) -------------------------------------------------------


def test_loop_applies_a_burst_once_quiet_and_leaves_pending_work_on_stop():
    feed: queue.SimpleQueue = queue.SimpleQueue()
    bursts, applied = [], threading.Event()

    def on_burst(burst):
        bursts.append(burst)
        applied.set()

    thread = threading.Thread(target=watch_loop, args=(feed, Debouncer(quiet=0.05), on_burst))
    thread.start()
    feed.put(["a.md"])
    feed.put(["b.md", "a.md"])
    assert applied.wait(5)
    feed.put(["c.md"])
    feed.put(STOP)  # before c.md's quiet period ends: c.md is left for the next catch-up
    thread.join(5)
    assert not thread.is_alive()
    assert [set(b.paths) for b in bursts] == [{"a.md", "b.md"}]


def test_loop_runs_idle_work_only_while_nothing_is_pending():
    feed: queue.SimpleQueue = queue.SimpleQueue()
    steps = []

    def idle_step():
        steps.append(time.monotonic())
        if len(steps) == 3:
            feed.put(STOP)
        return True  # always more work: the loop must keep coming back

    thread = threading.Thread(target=watch_loop, args=(feed, Debouncer(), lambda b: None),
                              kwargs={"idle_step": idle_step})
    thread.start()
    thread.join(5)
    assert len(steps) == 3


def test_a_query_with_nothing_pending_is_released_before_the_next_idle_step():
    # while the watcher embedded a new note, each query waited out a whole embedding slice
    # for its Settle (2.5 s a query instead of 0.1, qa146)
    feed: queue.SimpleQueue = queue.SimpleQueue()
    settled, steps = threading.Event(), []
    settle = Settle(settled)

    def idle_step():
        steps.append(settled.is_set())
        if len(steps) == 1:
            feed.put(settle)  # a query arrives during the first step
        elif len(steps) == 2:
            feed.put(STOP)
        return True

    thread = threading.Thread(target=watch_loop, args=(feed, Debouncer(), lambda b: None),
                              kwargs={"idle_step": idle_step})
    thread.start()
    thread.join(5)
    assert not thread.is_alive()
    assert steps == [False, True]  # the step after the query's arrival ran once it was released


def test_idle_work_from_elsewhere_runs_the_idle_step_again_without_a_burst():
    # `index --rebuild --no-embed` under the watcher: its embedding had found nothing left,
    # and the new generation waited for the next save (qa7 #4)
    feed: queue.SimpleQueue = queue.SimpleQueue()
    steps, bursts = [], []

    def idle_step():
        steps.append(1)
        if len(steps) == 2:
            feed.put(STOP)
        return False  # nothing left: the loop must not come back on its own

    thread = threading.Thread(target=watch_loop, args=(feed, Debouncer(), bursts.append),
                              kwargs={"idle_step": idle_step})
    thread.start()
    deadline = time.monotonic() + 5
    while not steps and time.monotonic() < deadline:  # the first idle step, on a busy machine too
        time.sleep(0.01)
    time.sleep(0.3)  # room for a second step the loop must not take on its own
    assert steps == [1]
    feed.put(IDLE_WORK)
    thread.join(5)
    assert not thread.is_alive() and steps == [1, 1] and bursts == []


def test_loop_turns_rescan_into_a_rescan_burst():
    feed: queue.SimpleQueue = queue.SimpleQueue()
    bursts = []
    feed.put(RESCAN)
    thread = threading.Thread(target=watch_loop, args=(feed, Debouncer(quiet=0.01),
                                                        lambda b: (bursts.append(b), feed.put(STOP))))
    thread.start()
    thread.join(5)
    assert len(bursts) == 1 and bursts[0].rescan


# -- real watchdog, real files, real Vault ---------------------------------------------------

NOTES = {
    "alpha.md": "# Alpha\nFoxes jump over [[beta]].\n",
    "beta.md": "# Beta\nTurtles win races.\n",
    "projects/p/working/a-notes.md": "# Notes\nKangaroo findings.\n",
    "projects/p/working/b-notes.md": "# More\nWombat findings.\n",
}


class Watched:
    """A vault watched by a real ChangeFeed; bursts are applied with Vault.index_paths on the
    loop's own thread (as in the daemon), and checked through a second Vault."""

    def __init__(self, root):
        self.root = root
        self.bursts: list = []
        self.errors: list = []
        self.applying = False  # a batch is between its ledger commit and its Whoosh commit
        self.reader = Vault(root)
        self.reader.index(embed=False)
        self.feed = ChangeFeed(self.reader.config)
        self.feed.start()
        self.thread = threading.Thread(target=self._loop)
        self.thread.start()

    def _loop(self):
        writer = Vault(self.root)

        def apply(burst):
            self.applying = True
            try:
                self.bursts.append((burst, writer.index_paths(burst.paths)))
            except Exception as exc:  # surfaced by the test, not swallowed
                self.errors.append(exc)
            finally:
                self.applying = False

        try:
            watch_loop(self.feed.queue, Debouncer(quiet=0.05), apply)
        finally:
            writer.close()

    def wait_for(self, condition, timeout=10.0):
        """Until ``condition`` holds between batches (another process can see a batch's
        ledger commit before its Whoosh commit; the daemon's readers cannot)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert not self.errors, self.errors
            if not self.applying and condition() and not self.applying:
                return
            time.sleep(0.02)
        raise AssertionError(f"condition not met within {timeout} s; bursts: "
                             f"{[sorted(b.paths) for b, _ in self.bursts]}")

    def finds(self, word):
        return [h.path for h in self.reader.search(word, lexical_only=True, decay=False).hits]

    def note_id(self, path):
        return self.reader.ledger.note_id(path)

    def consistent(self):
        return self.reader.lexical.doc_count() == self.reader.ledger.section_count()

    def stop(self):
        self.feed.stop()
        self.thread.join(10)
        self.reader.close()


@pytest.fixture
def watched(make_vault):
    w = Watched(make_vault(NOTES, config="[model]\nenabled = false\n"))
    yield w
    w.stop()


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_create_is_searchable(watched):
    write(watched.root / "gamma.md", "# Gamma\nOctopus arms.\n")
    watched.wait_for(lambda: watched.finds("octopus") == ["gamma.md"])
    assert watched.bursts[-1][1].new == 1 and watched.consistent()


def test_modify_replaces_the_old_text(watched):
    write(watched.root / "alpha.md", "# Alpha\nLemurs now.\n")
    watched.wait_for(lambda: watched.finds("lemurs") == ["alpha.md"])
    assert watched.finds("foxes") == [] and watched.consistent()


def test_atomic_save_is_one_modification_and_leaves_no_temp_file(watched):
    before = watched.note_id("beta.md")
    temp = watched.root / ".beta.md.swp"
    write(temp, "# Beta\nTurtles lose races to hares.\n")
    os.replace(temp, watched.root / "beta.md")
    watched.wait_for(lambda: watched.finds("hares") == ["beta.md"])
    assert watched.note_id("beta.md") == before
    assert ".beta.md.swp" not in watched.reader.ledger.attachment_paths()
    assert sum(r.modified for _, r in watched.bursts) == 1 and watched.consistent()


def test_a_same_size_rewrite_with_the_old_mtime_is_seen(watched):
    """``cp -p``, ``rsync -a``, ``touch -r``: the old size and mtime, other words."""
    path = watched.root / "beta.md"
    before = path.stat()
    write(path, "# Beta\nLizards win races.\n")  # as long as "Turtles win races."
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    watched.wait_for(lambda: watched.finds("lizards") == ["beta.md"])
    assert watched.finds("turtles") == [] and watched.consistent()


def test_a_change_of_permissions_is_seen(watched):
    """A chmod came as an event the watcher filtered out: a note skipped as unreadable and made
    readable again stayed out of the index until its next edit (qa158)."""
    os.chmod(watched.root / "alpha.md", 0o600)
    watched.wait_for(lambda: any("alpha.md" in burst.paths for burst, _ in watched.bursts))
    assert watched.consistent()


def test_move_keeps_the_note_identity(watched):
    before = watched.note_id("alpha.md")
    (watched.root / "archive").mkdir()
    os.rename(watched.root / "alpha.md", watched.root / "archive" / "alpha.md")
    watched.wait_for(lambda: watched.finds("foxes") == ["archive/alpha.md"])
    assert watched.note_id("archive/alpha.md") == before
    assert watched.bursts[-1][1].moved == 1


def test_directory_rename_moves_every_note_under_it(watched):
    ids = {name: watched.note_id(f"projects/p/working/{name}") for name in ("a-notes.md", "b-notes.md")}
    os.rename(watched.root / "projects" / "p", watched.root / "projects" / "q")
    watched.wait_for(lambda: watched.finds("wombat") == ["projects/q/working/b-notes.md"])
    assert {name: watched.note_id(f"projects/q/working/{name}") for name in ids} == ids
    assert watched.reader.ledger.note_by_path("projects/q/working/a-notes.md").project == "q"
    assert sum(r.moved for _, r in watched.bursts) == 2 and watched.consistent()


def test_delete_removes_sections_from_every_store(watched):
    (watched.root / "beta.md").unlink()
    watched.wait_for(lambda: watched.note_id("beta.md") is None)
    assert watched.finds("turtles") == [] and watched.consistent()


def test_a_file_gone_before_it_is_read_leaves_nothing_behind(watched):
    path = watched.root / "flash.md"
    write(path, "# Flash\nEphemeral platypus.\n")
    path.unlink()
    write(watched.root / "after.md", "# After\nSteady echidna.\n")
    watched.wait_for(lambda: watched.finds("echidna") == ["after.md"])
    assert watched.note_id("flash.md") is None
    assert "flash.md" not in dict(watched.reader.ledger.skipped())


def test_a_burst_of_files_is_coalesced(watched):
    for n in range(150):
        write(watched.root / "burst" / f"n{n:03}.md", f"# N{n}\nquokka{n} lives here.\n")
    watched.wait_for(lambda: sum(r.new for _, r in watched.bursts) == 150)  # applied in full
    assert watched.reader.ledger.counts()["notes"] == len(NOTES) + 150
    assert len(watched.bursts) < 15  # 150 files, several events each: a handful of plans
    assert watched.finds("quokka149") == ["burst/n149.md"] and watched.consistent()


def test_ignored_and_excluded_changes_never_make_a_burst(make_vault):
    root = make_vault(NOTES, config='exclude = ["templates/**"]\n[model]\nenabled = false\n')
    w = Watched(root)
    try:
        write(root / ".obsidian" / "workspace.json", "{}")
        write(root / "templates" / "t.md", "# T\nexcluded yak\n")
        write(root / ".git" / "HEAD", "ref: main")
        write(root / "last.md", "# Last\nA sentinel ibex.\n")
        w.wait_for(lambda: w.finds("ibex") == ["last.md"])
        seen = set().union(*(b.paths for b, _ in w.bursts))
        assert seen == {"last.md"}
        assert w.finds("yak") == []
    finally:
        w.stop()
