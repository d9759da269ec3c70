"""Plain text for every layer: cut to fit one line (the one place that shortens what a person
reads), and its words read the same however their letters were encoded."""

from __future__ import annotations

import codecs
import unicodedata
from typing import overload

ELLIPSIS = "…"


def shortened(text: str, limit: int) -> str:
    """``text`` when it fits in ``limit`` characters; else cut after the last whole word that
    fits, with "…" (a title "...the 15-minute hold al…" read as a typo in the note, qa103).
    Only a word longer than half the room (a URL, a path) is cut inside."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if not text[limit - 1].isspace():  # the cut falls inside a word: back to the space before it
        space = cut.rfind(" ")
        cut = cut[:space] if space > limit // 2 else cut
    return cut.rstrip(" ,;:") + ELLIPSIS


def composed(text: str) -> str:
    """``text`` as its words are read: accents composed with their letters (a note written
    decomposed, as macOS and some pastes write it, had split "Jürgen" into "ju" and "rgen":
    the accent is no letter of a word) and the invisible marks that sit inside words dropped (a
    soft hyphen pasted from a web page, a zero-width space): qa127."""
    return text if text.isascii() else unicodedata.normalize("NFC", visible(text))


@overload
def as_named(name: str) -> str: ...
@overload
def as_named(name: str | None) -> str | None: ...
def as_named(name: str | None) -> str | None:
    """A project's or an agent's name as the index holds it, composed: a name typed or read
    decomposed, as macOS hands "café" over, had started a second project "cafe" beside it, and
    `resume` had refused the very name it listed as known (qa157)."""
    return composed(name) if name is not None else name


def visible(text: str) -> str:
    """``text`` without the invisible marks that sit inside words (a soft hyphen, a zero-width
    space, a word joiner, a byte-order mark)."""
    return text.translate(_INVISIBLE)


_INVISIBLE = dict.fromkeys(map(ord, "\u00ad\u200b\u2060\ufeff"))


def is_utf16(head: bytes) -> bool:
    """Whether the first bytes of a file are UTF-16 text: a UTF-16 byte order mark (Windows
    Notepad and PowerShell write one), or, without one, NUL in every other byte and nowhere
    else (Latin text in UTF-16), where binary data has NULs at odd and even offsets alike."""
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return True
    even, odd = head[0::2], head[1::2]
    return bool(head) and ((b"\x00" not in even and odd.count(0) * 2 > len(odd))
                           or (b"\x00" not in odd and even.count(0) * 2 > len(even)))
