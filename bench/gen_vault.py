"""A deterministic synthetic Obsidian vault, for benchmarks: ``gen_vault.py --notes N --seed S OUT``.

Same seed, same note count -> a byte-identical vault (pure stdlib; only ``random.Random(seed)``
decides, never ``hash()`` or set order). What it imitates, so timings transfer to real vaults:

- sizes: log-normal, median ~2 KB, mean ~3 KB, capped at 60 KB (10,000 notes are ~30 MB);
- text: English-like sentences over a Zipfian vocabulary (real words first, then a long tail of
  derived words, compounds and identifiers, so the term count grows like a real corpus);
- structure: frontmatter, 1-8 nested headings, lists, tasks, tables, callouts, code fences
  (some holding fake ``[[links]]`` and ``# comments`` that are neither links nor headings);
- links of every Obsidian form between generated notes (``#heading``, ``#h#sub``, ``#^block``,
  ``|alias``, embeds, same-note, URL-encoded Markdown links), about 1% unresolved;
- folders: projects/*/checkpoints, projects/*/working, specs/, notion/, memory/, nested topics.

This module plans the vault (vocabulary, paths, sizes, headings); gen_notes.py writes the text.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_notes import NoteWriter  # noqa: E402  (bench/ is not a package)

VERSION = 2  # bump when the output for a given seed changes: cached vaults are keyed by it

FUNCTION_WORDS = """the of and to a in is that it for on with as was be this by are at from or have
not an but they which you one all were we can there their has been if more will would when so what
about up out no them into some could than other then its only these also how our two may first like
over such after most use new any where through time just because each way many those much should
well even back here work see used still make made same another while both between long own down
why last must under few right might old great good little set end does found three part small
place off year never number day point""".split()

CONTENT_WORDS = """system data index search note vault section heading link file folder query token
cache server client request response error test build release deploy config model embedding vector
score rank result agent project checkpoint spec memory user team review change commit branch merge
pipeline worker queue job task schedule retry timeout latency throughput disk network socket thread
process lock database table column row schema migration backup restore snapshot version endpoint
auth session cookie password key secret certificate policy role permission access log metric trace
alert dashboard incident outage fix bug issue patch regression benchmark profile audio microphone
sensor board firmware driver buffer sample rate filter signal noise battery power voltage current
frequency clock timer interrupt register memory heap stack pointer array list map set graph tree
node edge path route handler callback event message stream batch chunk page block record field
value type class function method module package library service cluster region zone replica shard
partition leader follower consensus quorum election heartbeat failover load balance proxy gateway
router firewall container image volume mount storage bucket object blob upload download sync
export import parser lexer compiler runtime interpreter plugin extension theme layout widget screen
window panel button form input output prompt editor cursor selection keyboard mouse scroll render
frame pixel color font style design draft proposal decision meeting customer product feature
roadmap milestone sprint estimate budget cost price invoice payment order account contract vendor
partner market report summary analysis experiment hypothesis baseline variant control sample
dataset label training evaluation accuracy precision recall loss gradient weight layer attention
transformer encoder decoder context window prompt completion reasoning planning tool call
function argument parameter option flag default setting preference environment variable secret
credential rotation expiry refresh renewal revocation audit compliance privacy consent retention
deletion archive history timeline calendar deadline reminder owner reviewer approver author reader
writer editor maintainer contributor question answer problem solution approach idea risk concern
tradeoff constraint requirement assumption dependency blocker workaround limitation edge case
corner failure crash panic exception warning trace dump core leak pressure spike drop jitter
delay backlog throttle limit quota burst window bucket counter gauge histogram percentile median
average maximum minimum threshold target goal objective outcome impact scope priority severity
status state transition lifecycle phase stage step loop cycle iteration round pass attempt trial
run launch start stop pause resume cancel abort finish complete pending blocked done ready open
closed merged reverted rejected accepted approved shipped deprecated removed added updated fixed
improved reduced increased measured tested verified checked validated confirmed failed passed broke
dropped moved renamed split joined wrapped unwrapped cached evicted flushed loaded saved written
read parsed indexed searched ranked fused decayed reinforced linked resolved followed embedded
quickly slowly carefully roughly nearly exactly mostly rarely often always never usually probably
clearly simply directly locally remotely manually automatically correctly safely
fast slow large tiny heavy light stable flaky broken clean dirty fresh stale hot cold warm raw
strict loose early late recent legacy modern internal external public private shared local remote
primary secondary optional required unknown missing invalid valid empty full partial nested flat
alice bob carol dave erin frank grace heidi ivan judy mallory oscar peggy trent victor walter
monday tuesday wednesday thursday friday january february march april june july august september
october november december morning evening tonight tomorrow yesterday week month quarter
berlin paris london tokyo seattle austin dublin lisbon oslo""".split()

SUFFIXES = ("s", "ing", "ed", "er", "ers", "able", "ation", "ly", "ness", "less", "ful", "ize")
AGENTS = ("claude-7f3", "claude-2c9", "codex-41a", "codex-b07", "gemini-5d2", "aider-913")
DUPLICATE_NAMES = ("Overview", "Notes", "Index", "Glossary", "Open questions")
MEDIAN_BYTES, SIGMA, MAX_BYTES, MIN_BYTES = 1900, 0.9, 60_000, 180
TAIL_WORDS_PER_NOTE = 6  # a 10,000-note vault gets ~60,000 distinct tail words (Heaps' law)


class Vocabulary:
    """Words ranked by frequency; ``sample`` draws from a Zipf-Mandelbrot law over the ranks."""

    def __init__(self, rng: random.Random, tail_size: int):
        head = list(dict.fromkeys(FUNCTION_WORDS + CONTENT_WORDS))
        self.words = head + _tail_words(rng, head, tail_size)
        weight, total, self.cumulative = 0.0, 0.0, []
        for rank in range(len(self.words)):
            weight = 1.0 / (rank + 2.7) ** 1.03
            total += weight
            self.cumulative.append(total)
        self.content = head[len(FUNCTION_WORDS):]

    def sample(self, rng: random.Random, count: int) -> list[str]:
        """``count`` words drawn by frequency (function words and common words dominate)."""
        return rng.choices(self.words, cum_weights=self.cumulative, k=count)

    def phrase(self, rng: random.Random, low: int, high: int) -> str:
        """A short content phrase (titles, headings, aliases): no function words."""
        return " ".join(rng.choice(self.content) for _ in range(rng.randint(low, high)))


def _tail_words(rng: random.Random, head: list[str], size: int) -> list[str]:
    """Rarer words built from real ones: derived forms, compounds, identifiers, versions."""
    content = head[len(FUNCTION_WORDS):]
    tail: dict[str, None] = {}
    while len(tail) < size:
        a, b, roll = rng.choice(content), rng.choice(content), rng.random()
        if roll < 0.5:
            word = _derive(a, rng.choice(SUFFIXES))
        elif roll < 0.6:
            word = a + b
        elif roll < 0.75:
            word = f"{a}_{b}"
        elif roll < 0.87:
            word = a.capitalize() + b.capitalize()
        elif roll < 0.95:
            word = f"{a}{rng.randint(2, 999)}"
        else:
            word = f"v{rng.randint(0, 9)}.{rng.randint(0, 40)}.{rng.randint(0, 20)}"
        if word not in head:
            tail[word] = None
    return list(tail)


def _derive(word: str, suffix: str) -> str:
    """``word`` + ``suffix`` with English spelling's commonest rule (retire -> retiring)."""
    if word.endswith("e") and suffix[0] in "aeiou":
        word = word[:-1]
    elif word.endswith(("s", "x", "sh", "ch")) and suffix == "s":
        suffix = "es"
    return word + suffix


@dataclass(frozen=True, slots=True)
class PlannedNote:
    """A note decided before any text is written, so links can point at real headings."""

    path: str
    name: str  # the file name without .md: what [[links]] use
    kind: str
    project: str | None
    size: int
    headings: tuple[tuple[int, str], ...]
    block: str | None  # a ^block id placed in the note, or None


def plan_notes(rng: random.Random, vocab: Vocabulary, count: int) -> list[PlannedNote]:
    """Paths, names, sizes and headings of every note, in a fixed order."""
    projects = sorted({"-".join(vocab.phrase(rng, 2, 2).split()) for _ in range(max(3, count // 400))})
    areas = _topic_folders(rng, vocab)
    used: set[str] = set()
    notes = []
    for i in range(count):
        kind, folder, name, project = _place(rng, vocab, projects, areas, i)
        key = f"{folder}/{name}".casefold() if name in DUPLICATE_NAMES else name.casefold()
        if key in used:  # names are unique, except the deliberate duplicates in other folders
            name = f"{name} {i}"
        used.add(key)
        size = _note_size(rng)
        headings = _headings(rng, vocab, kind, size)
        block = f"blk{i:05d}" if rng.random() < 0.08 else None
        notes.append(PlannedNote(f"{folder}/{name}.md" if folder else f"{name}.md", name, kind,
                                 project, size, headings, block))
    return notes


def _place(rng, vocab, projects, areas, i) -> tuple[str, str, str, str | None]:
    """(kind, folder, file name without .md, project) of note number ``i``."""
    roll = rng.random()
    project = rng.choice(projects)
    agent = rng.choice(AGENTS)
    if roll < 0.15:
        stamp = f"2026-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}" \
                f"{rng.randint(0, 59):02d}{rng.randint(0, 59):02d}Z"
        return "checkpoint", f"projects/{project}/checkpoints", f"{stamp}-{agent}", project
    if roll < 0.30:
        topic = "-".join(vocab.phrase(rng, 1, 3).split())
        return "working-note", f"projects/{project}/working", f"{agent}-{topic}", project
    if roll < 0.38:
        folder = "specs" if rng.random() < 0.7 else f"specs/{rng.choice(areas).split('/')[0]}"
        return "spec", folder, vocab.phrase(rng, 2, 4).capitalize(), None
    if roll < 0.48:
        title = vocab.phrase(rng, 1, 5).title()
        return "notion", "notion", f"{title} {rng.getrandbits(128):032x}", None
    if roll < 0.53:
        return "memory", "memory", "-".join(vocab.phrase(rng, 2, 3).split()), None
    folder = rng.choice(areas) if rng.random() > 0.06 else ""
    name = rng.choice(DUPLICATE_NAMES) if rng.random() < 0.01 and folder else \
        vocab.phrase(rng, 1, 5).capitalize()
    return "note", folder, name, None


def _topic_folders(rng: random.Random, vocab: Vocabulary) -> list[str]:
    """Nested topic folders: 12 areas, 4 subjects each, 2 sub-subjects per subject."""
    folders = []
    for area in sorted({vocab.phrase(rng, 1, 1) for _ in range(12)}):
        folders.append(area)
        for subject in sorted({vocab.phrase(rng, 1, 2).replace(" ", "-") for _ in range(4)}):
            folders.append(f"{area}/{subject}")
            folders += [f"{area}/{subject}/{vocab.phrase(rng, 1, 1)}" for _ in range(2)]
    return folders


def _note_size(rng: random.Random) -> int:
    size = int(rng.lognormvariate(math.log(MEDIAN_BYTES), SIGMA))
    return max(MIN_BYTES, min(MAX_BYTES, size))


def _headings(rng, vocab, kind, size) -> tuple[tuple[int, str], ...]:
    if kind == "checkpoint":
        return ((1, "Checkpoint: " + vocab.phrase(rng, 2, 4)), (2, "Summary"), (2, "Next"), (2, "Failed"))
    count = max(1, min(8, round(size / 1400) + rng.randint(-1, 2)))
    level = rng.choice((1, 2, 2))
    found: dict[str, int] = {}
    for _ in range(count):
        text = vocab.phrase(rng, 1, 4).capitalize()
        found.setdefault(text, level)
        level = max(2, min(4, level + rng.choice((-1, 0, 0, 1))))
    return tuple((lvl, text) for text, lvl in found.items())


def generate(out: Path, notes: int, seed: int) -> dict[str, int]:
    """Write a vault of ``notes`` notes into ``out`` (which must be empty or absent)."""
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} is not empty: pass a new folder (nothing was written)")
    rng = random.Random(seed)
    vocab = Vocabulary(rng, TAIL_WORDS_PER_NOTE * notes)
    planned = plan_notes(rng, vocab, notes)
    attachments = [f"attachments/diagram-{n}.png" for n in range(max(2, notes // 150))]
    writer = NoteWriter(rng, vocab, planned, attachments)
    total = 0
    for note in planned:
        data = writer.write(note).encode("utf-8")
        total += _write(out / note.path, data)
    for path in attachments:
        _write(out / path, b"\x89PNG\r\n\x1a\n" + rng.randbytes(rng.randint(64, 512)))
    _write(out / ".obsidian" / "app.json", b"{}\n")  # never indexed, as in a real vault
    return {"notes": notes, "bytes": total, "attachments": len(attachments)}


def _write(path: Path, data: bytes) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return len(data)


def main(argv: list[str] | None = None) -> int:
    """Command line: ``gen_vault.py --notes N --seed S OUT``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000, help="number of notes (default 10000)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("out", type=Path, help="a new or empty folder to write the vault into")
    args = parser.parse_args(argv)
    if args.notes < 1:
        parser.error("--notes must be at least 1")
    try:
        made = generate(args.out, args.notes, args.seed)
    except FileExistsError as exc:
        print(f"gen_vault: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {made['notes']} notes ({made['bytes'] / 1e6:.1f} MB) and "
          f"{made['attachments']} attachments to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
