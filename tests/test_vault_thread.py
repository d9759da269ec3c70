"""The runtime of the long-lived interfaces: a vault on its own thread (vault_engine/vault_thread.py).
Following index files another process replaced is tested through the TUI's lanes
(tests/tui/test_lanes_follow_index.py) and the daemon (tests/daemon)."""

from __future__ import annotations

import asyncio
import threading
import time

from vault_engine.vault_thread import VaultThread


class StandIn:
    """A vault stand-in with no stores (as the daemon-first DaemonVault): no ``config`` to check."""

    def __init__(self):
        self.closed = 0

    def close(self):
        self.closed += 1


def test_calls_run_in_order_on_one_thread_and_a_stand_in_is_never_checked():
    stand_in = StandIn()
    thread = VaultThread(lambda: stand_in, stores=False)
    try:
        first = thread.call(lambda vault, x: (threading.get_ident(), vault, x), 1)
        second = asyncio.run(thread.run(lambda vault, x: (threading.get_ident(), vault, x), x=2))
    finally:
        thread.close()
    assert first[:2] == second[:2] == (first[0], stand_in) and first[0] != threading.get_ident()
    assert (first[2], second[2], stand_in.closed, thread.opened) == (1, 2, 1, False)


def test_close_drops_queued_calls_and_waits_for_the_running_one():
    thread = VaultThread(StandIn, stores=False)
    gate, ran = threading.Event(), []
    running = thread.submit(lambda vault: gate.wait(5))
    queued = thread.submit(lambda vault: ran.append("queued"))
    deadline = time.monotonic() + 10  # a wait that fails, never hangs the run
    while not thread.busy:
        assert time.monotonic() < deadline, "the first call never started"
        time.sleep(0.01)
    assert thread.waiting == 1
    closing = threading.Thread(target=thread.close)
    closing.start()
    while not queued.cancelled():
        assert time.monotonic() < deadline, "close() did not drop the queued call"
        time.sleep(0.01)
    gate.set()
    closing.join(10)
    assert running.result() is True and ran == [] and thread.waiting == 0 and not thread.busy


def test_an_error_reaches_the_caller_and_the_thread_goes_on():
    thread = VaultThread(StandIn, stores=False)
    try:
        failed = thread.submit(lambda vault: 1 / 0)
        assert isinstance(failed.exception(), ZeroDivisionError)
        assert thread.call(lambda vault: "still here") == "still here"
    finally:
        thread.close()


def test_reload_opens_a_fresh_vault_at_the_next_call():
    thread = VaultThread(StandIn, stores=False)
    try:
        first = thread.call(lambda vault: vault)
        thread.reload()
        second = thread.call(lambda vault: vault)
    finally:
        thread.close()
    assert first is not second and first.closed == 1
