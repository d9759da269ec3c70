"""A small repository inside a vault, for the code tap's tests: a Python package with a test,
a TypeScript module, a memory note and a checkpoint that name its symbols."""

from __future__ import annotations

CONFIG = '[taps.code]\nsource = "code"\npaths = ["src/**", "web/**"]\n'

FILES = {
    "src/shop/__init__.py": "from .orders import OrderBook\n",
    "src/shop/orders.py": '''"""Orders."""
from .pricing import price_of


class OrderBook:
    """A book of orders."""

    def __init__(self):
        self.orders = []

    @staticmethod
    def _check(qty):
        return qty > 0

    def place(self, sku, qty):
        """Place one order."""
        if not self._check(qty):
            raise ValueError("qty")
        total = price_of(sku) * qty
        self.orders.append((sku, total))
        return total


def unused():
    return 1
''',
    "src/shop/pricing.py": '''PRICES = {"a": 2}


def price_of(sku):
    return PRICES[sku]


def place():
    """Another place, for ambiguity."""
    return None
''',
    "src/shop/cli.py": '''from shop.orders import OrderBook
from shop.pricing import price_of


def main():
    OrderBook()
    return price_of("a")
''',
    "src/tests/test_orders.py": '''from shop.pricing import price_of


def test_price():
    assert price_of("a") == 2
''',
    "web/app.ts": '''export const createStore = (name: string) => {
  return helper(name)
}

function helper(n: string): string {
  return n
}
''',
    "src/README.md": "# Shop\nnot a note: it lives in the code tap's paths\n",
    "memory/orders.md": '''---
type: memory
facet: invariants
title: Orders are priced once
---
# Orders are priced once

`OrderBook.place` prices an order with `price_of` when it is placed, see [[src/shop/orders.py]].
The quantity must be positive: a zero quantity is refused before pricing.
''',
    "projects/shop/checkpoints/2026-09-01T10-00-00Z-agent.md": '''---
type: checkpoint
project: shop
agent: agent-1
created: 2026-09-01T10:00:00Z
---
# Checkpoint
## Summary
Pricing work.
## Failed
- Cache prices inside `OrderBook.place` -- stale prices after an update
''',
}


def build(make_vault, extra: dict | None = None):
    """The vault, indexed words only."""
    from vault_engine.vault import Vault

    root = make_vault({**FILES, **(extra or {})}, CONFIG)
    with Vault(root) as vault:
        vault.index(embed=False)
    return root
