"""Backticked names and paths in a note (`OrderBook.place`, `src/shop/orders.py`): what makes
a note a "why" link of the code it names. Pure; fenced code blocks are code, not mentions."""

from __future__ import annotations

import re

from vault_engine.parsing.fences import TEXT, fence_roles

_SPAN = re.compile(r"(?<!`)`([^`\n]{2,200})`(?!`)")
# A name or path: identifier characters, dots, slashes, ``#`` and ``:`` (ref and module forms).
_NAMELIKE = re.compile(r"^[@\w$.#:/-]*[\w$]$")
# A Rust or C++ path is the dotted name the code tap gives its symbol (`Ledger::record` is
# `Ledger.record`, `crate::util::fmt::money` is `util.fmt.money`): notes naming Rust code the
# way Rust writes it were linked to none of it (qa57).
_PATH_ROOT = re.compile(r"^(?:crate|self|super)::")
_CALL = re.compile(r"^([@\w$.#:/-]*[\w$])\(.*\)$")  # a name, then its arguments


def mention_token(span: str) -> str | None:
    """The name or path a backticked span states, or None for anything else (a command line,
    an expression): ``OrderBook.place()`` and ``OrderBook.place(sku, 2)`` -> ``OrderBook.place``,
    ``crate::util::money`` -> ``util.money``."""
    token = span.strip()
    call = _CALL.match(token)  # `Entry::credit(250)`, `Ledger.record(5)` name what they call (qa58)
    token = call[1] if call else token
    token = _PATH_ROOT.sub("", token.lstrip("@")).replace("::", ".")
    if not token or not _NAMELIKE.match(token) or not re.search(r"[A-Za-z_]", token):
        return None
    return token


def mentions_in(text: str, first_line: int = 1) -> list[tuple[str, int]]:
    """(token, 1-based line) of every backticked name or path outside fenced code blocks."""
    found = []
    lines = text.split("\n")
    for offset, (line, role) in enumerate(zip(lines, fence_roles(lines))):
        if role != TEXT:
            continue
        for m in _SPAN.finditer(line):
            token = mention_token(m.group(1))
            if token:
                found.append((token, first_line + offset))
    return found
