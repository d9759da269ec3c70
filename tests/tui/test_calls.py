"""One level of the call tree from a ``Vault.calls`` answer: direct callers or callees, a
cycle marked, module-level code a leaf, and a line saying why when there are none."""

import pytest

from tui.calls import MODULE, CallStep, call_level, step_label
from vault_engine.vault import Vault


@pytest.fixture
def vault(call_vault):
    with Vault(call_vault) as opened:
        yield opened


def level(vault, ref, direction, above=()):
    return call_level(vault.calls(ref, direction=direction), above or (ref,))


def test_direct_callers_each_once_module_code_a_leaf(vault):
    got = level(vault, "src/shop/walk.py#ping", "callers")
    assert [(s.ref, s.symbol, s.line, s.cycle, s.expandable) for s in got.steps] == [
        ("src/shop/walk.py", MODULE, 1, False, False),
        ("src/shop/walk.py#pong", "pong", 6, False, True)]
    assert got.note is None


def test_a_step_already_above_in_the_tree_is_a_cycle_and_does_not_expand(vault):
    got = level(vault, "src/shop/walk.py#pong", "callees", ("src/shop/walk.py#ping", "src/shop/walk.py#pong"))
    assert [(s.symbol, s.cycle, s.expandable) for s in got.steps] == [("ping", True, False)]
    assert step_label(got.steps[0]) == "ping  walk.py:1  ↻ cycle"


def test_a_function_calling_itself_is_its_own_cycle(vault):
    got = level(vault, "src/shop/walk.py#countdown", "callees")
    assert [(s.ref, s.cycle, s.line) for s in got.steps] == [("src/shop/walk.py#countdown", True, 11)]
    assert step_label(got.steps[0]) == "countdown  walk.py:11  ↻ cycle"
    assert [s.ref for s in level(vault, "src/shop/walk.py#countdown", "callers").steps] == [
        "src/shop/walk.py#countdown"]


def test_none_found_says_calls_are_never_guessed_and_a_bad_name_says_why(vault):
    got = level(vault, "src/shop/orders.py#checkout", "callers")
    assert got.steps == () and got.note.startswith("no callers found")
    got = level(vault, "src/shop/orders.py#Nope", "callees")
    assert got.steps == () and got.note.startswith("no such symbol: src/shop/orders.py is indexed")


def test_a_label_names_the_file_not_the_whole_path():
    step = CallStep("src/deep/er/orders.py#OrderBook.check", "OrderBook.check", "src/deep/er/orders.py", 6, False)
    assert step_label(step) == "OrderBook.check  orders.py:6"
