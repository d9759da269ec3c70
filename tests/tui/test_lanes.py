"""A lane runs every call on its one thread, with one Vault it opened there."""

import asyncio
import contextlib
import threading

from tui.lanes import VaultLane


def where(vault):
    return threading.get_ident(), id(vault)


def test_calls_run_on_one_thread_other_than_the_callers_with_one_vault(indexed_vault):
    lane = VaultLane(indexed_vault, "test")

    async def two_calls():
        return await lane.call(where), await lane.call(where)

    try:
        first, second = asyncio.run(two_calls())
    finally:
        lane.close()
    assert first == second  # same thread, same Vault object
    assert first[0] != threading.get_ident()


def test_the_lane_vault_answers_and_errors_reach_the_caller(indexed_vault):
    from vault_engine.errors import UnknownRef
    from vault_engine.vault import Vault

    lane = VaultLane(indexed_vault, "test")

    async def calls():
        view = await lane.call(Vault.show, "glossary.md")
        try:
            await lane.call(Vault.show, "no/such/note.md")
        except UnknownRef as exc:
            return view, exc
        return view, None

    try:
        view, error = asyncio.run(calls())
    finally:
        lane.close()
    assert view.path == "glossary.md"
    assert error is not None and "no/such/note.md" in str(error)


def test_a_cancelled_call_still_waiting_in_the_queue_never_runs(indexed_vault):
    lane = VaultLane(indexed_vault, "test")
    gate, ran = threading.Event(), []

    async def scenario():
        blocker = asyncio.ensure_future(lane.call(lambda vault: gate.wait(5)))
        queued = asyncio.ensure_future(lane.call(lambda vault: ran.append("queued")))
        await asyncio.sleep(0.05)
        queued.cancel()  # what an exclusive worker does when the user types again
        with contextlib.suppress(asyncio.CancelledError):  # the cancel reaches the thread's queue
            await queued  # (a loop callback) before the blocker lets the thread go on
        gate.set()
        await blocker
        await asyncio.sleep(0.05)

    try:
        asyncio.run(scenario())
    finally:
        lane.close()
    assert ran == []


def test_close_closes_the_vault_on_its_thread(indexed_vault):
    lane = VaultLane(indexed_vault, "test")
    asyncio.run(lane.call(lambda vault: vault.ledger))  # opens the SQLite connection
    lane.close()
    assert not lane.thread.opened
