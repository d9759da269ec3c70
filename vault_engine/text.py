"""Text cut to fit one line: the one place that shortens what a person reads."""

from __future__ import annotations

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
