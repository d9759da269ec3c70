"""Text cut to fit one line (vault_engine/text.py)."""

from vault_engine.text import shortened


def test_a_text_that_fits_is_kept_whole():
    assert shortened("Beamforming on the MCU", 22) == "Beamforming on the MCU"


def test_a_cut_falls_after_a_whole_word_never_inside_one():
    assert shortened("print books keep the 15-minute hold always", 32) == "print books keep the 15-minute…"
    assert shortened("print books keep the 15-minute hold", 31) == "print books keep the 15-minute…"  # at a space
    assert shortened("keep it, then drop it", 10) == "keep it…"  # no comma before the ellipsis


def test_only_a_word_longer_than_half_the_room_is_cut_inside():
    url = "see https://example.org/a/very/long/path/to/a/page"
    assert shortened(url, 30) == url[:29] + "…"
