"""The text of the synthetic vault's notes (see gen_vault.py): frontmatter, sections,
blocks and inline links of every Obsidian form, drawn from one seeded ``random.Random``."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING
from urllib.parse import quote

if TYPE_CHECKING:
    from gen_vault import PlannedNote, Vocabulary

FAKE_LINK = "Fake link"  # starts every [[link]] written inside code or %% comments %%
UNRESOLVED = "Unwritten"  # starts every link to a note that does not exist
FACETS = ("lifecycle", "data_state", "boundaries", "invariants", "failure")
LANGS = ("python", "bash", "json", "text", "sql", "yaml")


class NoteWriter:
    """Writes the text of planned notes: frontmatter, sections, blocks, inline links."""

    LINKS_PER_SENTENCE = 0.3

    def __init__(self, rng: random.Random, vocab: Vocabulary, notes: list[PlannedNote],
                 attachments: list[str]):
        self.rng, self.vocab, self.notes, self.attachments = rng, vocab, notes, attachments
        order = list(range(len(notes)))
        rng.shuffle(order)  # popularity is independent of folder: hubs are anywhere
        self.by_popularity = [notes[i] for i in order]
        self.popularity = list(_accumulate(1.0 / (rank + 1) ** 0.8 for rank in range(len(notes))))
        self.by_project: dict[str, list[PlannedNote]] = {}
        for note in notes:
            if note.project:
                self.by_project.setdefault(note.project, []).append(note)
        self.tags = [w for w in vocab.content[:120]] + [f"{a}/{b}" for a, b in
                                                         zip(vocab.content[:40], vocab.content[200:240])]
        self.note: PlannedNote = notes[0]
        self.block_pending = False

    def write(self, note: PlannedNote) -> str:
        """The complete file text of ``note``."""
        self.note = note
        self.block_pending = note.block is not None
        parts = [self._frontmatter()]
        if note.kind == "checkpoint":
            parts.append(self._checkpoint())
        else:
            parts.append(self._sections())
        return "".join(parts)

    # -- links --------------------------------------------------------------------------

    def link(self) -> str:
        """One link from the current note, in one of Obsidian's forms."""
        rng, roll = self.rng, self.rng.random()
        if roll < 0.01:
            return f"[[{UNRESOLVED} {self.vocab.phrase(rng, 1, 3)}]]"
        if roll < 0.05 and len(self.note.headings) > 1:
            return f"[[#{rng.choice(self.note.headings)[1]}]]"
        if roll < 0.06 and self.attachments:
            return f"![[{rng.choice(self.attachments).rsplit('/', 1)[-1]}]]"
        target = self._target()
        if target.kind == "notion" and rng.random() < 0.6:
            return self._markdown_link(target)
        return self._wiki_link(target, rng.random())

    def _target(self) -> PlannedNote:
        siblings = self.by_project.get(self.note.project or "", ())
        if siblings and self.rng.random() < 0.4:
            return self.rng.choice(siblings)
        return self.rng.choices(self.by_popularity, cum_weights=self.popularity)[0]

    def _wiki_link(self, target: PlannedNote, roll: float) -> str:
        name, rng = target.name, self.rng
        if roll < 0.55:
            return f"[[{name}]]"
        if roll < 0.68:
            return f"[[{name}#{rng.choice(target.headings)[1]}]]"
        if roll < 0.71:
            return f"[[{name}#{_heading_path(target.headings, rng)}]]"
        if roll < 0.74 and target.block:
            return f"[[{name}#^{target.block}]]"
        if roll < 0.86:
            return f"[[{name}|{self.vocab.phrase(rng, 1, 3)}]]"
        if roll < 0.89:
            return f"![[{name}]]"
        if roll < 0.93 and "/" in target.path:
            return f"[[{target.path[:-3]}]]"
        if roll < 0.96:
            return f"[[{name.lower()}]]"  # resolves only case-insensitively
        return self._markdown_link(target)

    def _markdown_link(self, target: PlannedNote) -> str:
        here = self.note.path.split("/")[:-1]
        there = target.path.split("/")
        common = 0
        while common < min(len(here), len(there) - 1) and here[common] == there[common]:
            common += 1
        relative = "/".join([".."] * (len(here) - common) + there[common:])
        return f"[{target.name.rsplit(' ', 1)[0]}]({quote(relative)})"

    # -- inline text --------------------------------------------------------------------

    def sentence(self, links: bool = True) -> str:
        """5-18 words, sometimes with a code span, bold text, a #tag, a URL or a link."""
        rng = self.rng
        words = self.vocab.sample(rng, rng.randint(5, 18))
        words[0] = words[0].capitalize()
        if len(words) > 8 and rng.random() < 0.4:
            words[rng.randint(3, len(words) - 3)] += ","
        roll = rng.random()
        if roll < 0.05:
            words.insert(rng.randint(1, len(words)), f"`{self._code_span()}`")
        elif roll < 0.08:
            words.insert(rng.randint(1, len(words)), f"**{self.vocab.phrase(rng, 1, 2)}**")
        elif roll < 0.11:
            words.append("#" + rng.choice(self.tags))
        elif roll < 0.12:
            words.append(f"(see https://example.com/{self.vocab.phrase(rng, 1, 1)})")
        if links and rng.random() < self.LINKS_PER_SENTENCE:
            words.insert(rng.randint(1, len(words)), self.link())
        return " ".join(words) + rng.choice(".....?:")[0]

    def _code_span(self) -> str:
        if self.rng.random() < 0.15:
            return f"[[{FAKE_LINK} {self.vocab.phrase(self.rng, 1, 2)}]]"  # in a code span: no link
        return "_".join(self.vocab.sample(self.rng, 2)) + "()"

    def paragraph(self) -> str:
        """1-6 sentences; the note's ^block id, if any, ends its first paragraph."""
        text = " ".join(self.sentence() for _ in range(self.rng.randint(1, 6)))
        if self.block_pending:  # the note's ^block id goes on its first paragraph
            text += f" ^{self.note.block}"
            self.block_pending = False
        return text + "\n\n"

    # -- blocks -------------------------------------------------------------------------

    def bullets(self) -> str:
        """A bullet list (a quarter of them task lists), some items with a nested item."""
        rng, lines = self.rng, []
        task = rng.random() < 0.25
        for _ in range(rng.randint(2, 7)):
            box = rng.choice(("[ ] ", "[x] ")) if task else ""
            lines.append(f"- {box}{self.sentence()}")
            if rng.random() < 0.25:
                lines.append(f"  - {self.sentence()}")
        return "\n".join(lines) + "\n\n"

    def numbered(self) -> str:
        """A short numbered list."""
        return "\n".join(f"{n}. {self.sentence()}" for n in range(1, self.rng.randint(3, 6))) + "\n\n"

    def code_fence(self) -> str:
        """A fenced code block: code-like lines, ``# comments`` and fake ``[[links]]``."""
        rng, vocab = self.rng, self.vocab
        lines = [f"```{rng.choice(LANGS)}"]
        for _ in range(rng.randint(3, 14)):
            a, b, c, d = ("_".join(vocab.sample(rng, 2)) for _ in range(4))
            roll = rng.random()
            if roll < 0.12:
                lines.append(f"# {vocab.phrase(rng, 2, 5)}")  # looks like a heading; is not
            elif roll < 0.2:
                lines.append(f'{a} = "see [[{FAKE_LINK} {vocab.phrase(rng, 1, 3)}]]"')  # in a fence: no link
            else:
                lines.append(f"{'    ' * rng.randint(0, 2)}{a} = {b}({c}, {d})")
        return "\n".join(lines) + "\n```\n\n"

    def callout(self) -> str:
        """An Obsidian callout (``> [!note] Title``) of 1-3 lines."""
        kind = self.rng.choice(("note", "tip", "warning", "info", "quote"))
        title = self.vocab.phrase(self.rng, 1, 4).capitalize()
        body = "\n".join(f"> {self.sentence()}" for _ in range(self.rng.randint(1, 3)))
        return f"> [!{kind}] {title}\n{body}\n\n"

    def table(self) -> str:
        """A Markdown table of 2-4 columns and 2-5 rows."""
        rng, vocab = self.rng, self.vocab
        columns = rng.randint(2, 4)
        header = [vocab.phrase(rng, 1, 2).capitalize() for _ in range(columns)]
        rows = [[" ".join(vocab.sample(rng, rng.randint(1, 4))) for _ in range(columns)]
                for _ in range(rng.randint(2, 5))]
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * columns]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines) + "\n\n"

    def dead_end(self) -> str:
        """A working-note dead-end marker, in one of the three explicit forms."""
        roll = self.rng.random()
        if roll < 0.4:
            return f"> [!deadend] {self.vocab.phrase(self.rng, 2, 5).capitalize()}\n> {self.sentence()}\n\n"
        if roll < 0.7:
            return f"{self.rng.choice(('DEADEND', 'FAILED'))}: {self.sentence()}\n\n"
        return f"- {self.sentence(links=False)} #deadend\n\n"

    def block(self) -> str:
        """One block, by rough real-vault frequencies: mostly paragraphs and lists."""
        roll = self.rng.random()
        if self.note.kind == "working-note" and roll < 0.08:
            return self.dead_end()
        if roll < 0.55:
            return self.paragraph()
        if roll < 0.72:
            return self.bullets()
        if roll < 0.78:
            return self.numbered()
        if roll < 0.87:
            return self.code_fence()
        if roll < 0.93:
            return self.callout()
        if roll < 0.97:
            return self.table()
        return f"%% {self.sentence()} [[{FAKE_LINK} {self.vocab.phrase(self.rng, 1, 2)}]] %%\n\n"

    # -- whole notes --------------------------------------------------------------------

    def _fill(self, budget: int) -> list[str]:
        parts, used = [], 0
        while used < budget:
            part = self.block()
            parts.append(part)
            used += len(part)
        return parts

    def _sections(self) -> str:
        note, rng = self.note, self.rng
        budget = max(80, note.size // (len(note.headings) + 1))
        parts = [self.paragraph()] if rng.random() < 0.3 else []
        for level, text in note.headings:
            parts.append(f"{'#' * level} {text}\n\n")
            parts += self._fill(int(budget * rng.uniform(0.5, 1.5)))
        return "".join(parts).rstrip("\n") + "\n"

    def _checkpoint(self) -> str:
        rng, note = self.rng, self.note
        summary = "".join(self._fill(max(100, note.size - 900)))
        nexts = "\n".join(f"- {self.sentence()}" for _ in range(rng.randint(1, 4)))
        failed = []
        for _ in range(rng.randint(1, 5)):
            item = self.sentence(links=rng.random() < 0.3).rstrip(".?:")
            if rng.random() < 0.5:
                failed.append(f"- {item}\n  - Reason: {self.sentence(links=False)}")
            else:
                failed.append(f"- {item} \u2014 {self.sentence(links=False).lower()}")
        return (f"# {note.headings[0][1]}\n\n## Summary\n\n{summary}## Next\n\n{nexts}\n\n"
                f"## Failed\n\n" + "\n".join(failed) + "\n")

    def _frontmatter(self) -> str:
        note, rng = self.note, self.rng
        chance = {"checkpoint": 1.0, "memory": 1.0, "working-note": 0.7, "spec": 0.8,
                  "notion": 0.0, "note": 0.4}[note.kind]
        if rng.random() >= chance:
            return ""
        created = f"2026-{rng.randint(1, 6):02d}-{rng.randint(1, 28):02d}"
        fields = [f"created: {created}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z"]
        if note.kind == "checkpoint":
            fields = ["type: checkpoint", f"project: {note.project}",
                      f"agent: {note.name.rsplit('Z-', 1)[-1]}", *fields]
        elif note.kind == "memory":
            fields = ["type: memory", f"facet: {rng.choice(FACETS)}", *fields]
        if rng.random() < 0.6:
            fields.append(f"updated: 2026-{rng.randint(7, 11):02d}-{rng.randint(1, 28):02d}")
        if rng.random() < 0.6:
            tags = rng.sample(self.tags, rng.randint(1, 4))
            fields.append("tags: [" + ", ".join(tags) + "]" if rng.random() < 0.5 else
                          "tags:\n" + "".join(f"  - {t}\n" for t in tags).rstrip("\n"))
        return "---\n" + "\n".join(fields) + "\n---\n"


def _heading_path(headings: tuple[tuple[int, str], ...], rng: random.Random) -> str:
    """``Parent#Child`` for a nested heading of the note (a plain heading when none nests)."""
    nested = []
    for i, (level, text) in enumerate(headings):
        for parent_level, parent in reversed(headings[:i]):
            if parent_level < level:
                nested.append(f"{parent}#{text}")
                break
    return rng.choice(nested) if nested else rng.choice(headings)[1]


def _accumulate(weights):
    total = 0.0
    for weight in weights:
        total += weight
        yield total
