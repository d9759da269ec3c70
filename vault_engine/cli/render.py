"""Human renderings of command results (plain text: fast to import, readable when piped)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from vault_engine.dates import utc_time
from vault_engine.refs import printed

if TYPE_CHECKING:  # annotations only: a code command's rendering needs none of them
    from vault_engine.model import IndexReport, NoteView, ResolvedLink, SearchResult


def iso(ts: float | None) -> str:
    """``2026-03-14T10:22:00Z``, or ``never`` (a last index, a last reinforcement)."""
    return utc_time(ts, "never")


PROGRESS_LABELS = {"read": "reading notes", "lexical": "lexical index", "model": "preparing the model",
                   "embed": "embedding sections"}
QUIET_SECONDS = 10.0  # off a terminal, a run this short prints no progress at all
LINE_EVERY_SECONDS = 30.0


@contextmanager
def progress_bar(enabled: bool) -> Iterator[Any]:
    """A rich progress bar on a terminal, else (a log, CI, an agent's shell) one line on stderr
    every 30 s once a run has taken 10 s: a long first index says it is alive, one edit says nothing."""
    if not enabled:
        yield progress_lines()
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    labels = PROGRESS_LABELS
    with Progress(TextColumn("{task.description:<20}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), transient=True) as bar:
        tasks: dict[str, Any] = {}

        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage_label(stage, labels), total=total)
            bar.update(tasks[stage], completed=done, total=total)

        yield update


def progress_lines(out: Any = None, clock: Any = None) -> Any:
    """The progress callback off a terminal: ``stage: done/total (n%), s`` lines on stderr."""
    import sys
    import time

    clock = clock or time.monotonic
    started = clock()
    said: dict[str, float] = {}
    last: dict[str, tuple[int, int]] = {}  # what each stage said last: never the same line twice

    def update(stage: str, done: int, total: int) -> None:
        now = clock()
        if last.get(stage) == (done, total):
            return
        if now - started < QUIET_SECONDS or now - said.get(stage, -LINE_EVERY_SECONDS) < LINE_EVERY_SECONDS:
            if not (done == total and stage in said):  # a stage that spoke ends with its last line
                return
        said[stage], last[stage] = now, (done, total)
        share = f" ({100 * done // total}%)" if total else ""
        print(f"vault-engine: {stage_label(stage, PROGRESS_LABELS)}: {done:,}/{total:,}{share}, "
              f"{now - started:.0f} s", file=out or sys.stderr, flush=True)

    return update


def stage_label(stage: str, labels: dict[str, str]) -> str:
    """``embed:onnxruntime`` -> ``embedding sections (onnxruntime)``: the stage, and what runs it."""
    name, _, runner = stage.partition(":")
    label = labels.get(name, name)
    return f"{label} ({runner})" if runner else label


def _sections(n: int) -> str:
    return "1 section" if n == 1 else f"{n} sections"


def index_report(r: IndexReport) -> str:
    parts = [f"{r.new} new", f"{r.modified} modified", *([f"{r.read_again} read again"] if r.read_again else []),
             f"{r.moved} moved", f"{r.deleted} deleted", f"{r.unchanged} unchanged"]
    if r.source_files:
        files = f"{r.source_files} source file{'s' if r.source_files != 1 else ''}"
        parts[-1] += f"; {files} new, changed, moved or deleted"
    line = f"indexed in {r.seconds:.2f} s: " + ", ".join(parts) + f"; {_sections(r.sections)}"
    if r.embedded:
        line += f"; {_sections(r.embedded)} embedded"
    if r.skipped:
        left = f"; {r.left_out} of them indexed until now, left out until readable" if r.left_out else ""
        line += f"; {len(r.skipped)} skipped (see above{left})"
    return line


SHOWN_LINKS = 6  # a hit's links named in text output; --json has them all


def search_result(result: SearchResult) -> str:
    if not result.hits:
        from vault_engine.memory.render import PROPOSAL_IN_QUOTE, one_line  # 6 ms of imports: a miss only

        # why, as JSON's confidence_reason says it: the miss rule's reasons were in JSON only (qa105)
        why = f" ({result.confidence_reason})" if result.confidence_reason else ""
        searched = f" ({'+'.join(result.arms)})" if result.arms else ""  # a vault of no notes runs no arm
        return (f"no match for {one_line(result.query, PROPOSAL_IN_QUOTE)!r}{searched}: "
                f"a miss, not a guess{why}")
    out = [result.confidence_line]
    for n, hit in enumerate(result.hits, 1):
        s = hit.scores
        parts = [f"fused {s.fused:.3f}"]
        if s.lexical is not None:
            parts.append(f"bm25 {s.lexical:.2f}")
        if s.semantic is not None:
            parts.append(f"cos {s.semantic:.2f}")
        if s.decay != 1.0:
            parts.append(f"decay x{s.decay:.2f}")
        via = f"  via {hit.via}" if hit.via else ""
        out.append(f"{n:>2}. {printed(hit.ref)}  [{hit.kind}, {hit.tap}] {hit.score:.3f} ({', '.join(parts)}){via}")
        if hit.snippet:
            out.append(f"    {hit.snippet}")
        if hit.ruled_out_line:
            out.append(f"    {printed(hit.ruled_out_line)}")
        if hit.also:  # by the note part of the hit's own ref: a Notion page's is `notion://<id>`, not its path (qa127)
            note = hit.ref.partition("#")[0]
            out.append("    also in this note: " + ", ".join(printed(ref.removeprefix(note)) or "its opening"
                                                          for ref in hit.also))
        # each target once: a note linking PostgreSQL twice listed it twice (qa52)
        followable = list({link.ref: link for link in hit.links if link.resolved}.values())
        # an unresolved link is counted: a reader could not tell a dangling one was there (qa72)
        unresolved = len({link.raw for link in hit.links if not link.resolved})
        dangling = f"{unresolved} unresolved" if unresolved else ""
        if followable:
            left = len(followable) - SHOWN_LINKS
            more = ", ".join(filter(None, [f"+{left} more: --json lists them" if left > 0 else "", dangling]))
            out.append("    links: " + ", ".join(
                printed(link.ref or "") + (f" (no such {link.missing_what})" if link.section_missing else "")
                + (" (ambiguous)" if link.ambiguous else "") for link in followable[:SHOWN_LINKS])
                + (f" ({more})" if more else ""))
        elif dangling:
            out.append(f"    links: {dangling}")
    return "\n".join(out)


def note_view(view: NoteView) -> str:
    where = f"{printed(view.path)}:{view.line_start}-{view.line_end}"
    project = f", project {view.project}" if view.project else ""
    head = f"── {printed(view.ref)}  ({view.kind}, tap {view.tap}{project}) {where}"
    lines = [head, view.text.rstrip()]
    unresolved = [link for link in view.links if not link.resolved]
    missing = sum(1 for link in view.links if link.section_missing)
    if view.links:
        lines.append(f"── {len(view.links)} links, {len(unresolved)} unresolved"
                     + (f", {missing} to a missing heading or block" if missing else ""))
    return "\n".join(lines + followed(view.followed))


def followed(notes: Sequence[Any]) -> list[str]:
    """``--follow``: each section reached, with where it was reached from, then its text."""
    out = []
    for f in notes:
        at = f" line {f.line}" if f.line else ""
        named = f" `{f.token}`" if f.token else ""  # what a why note names there, at the first hop
        out.append(f"── followed {f.hops}: {printed(f.ref)}  ({f.kind}, {f.how}{named}{at}, from {printed(f.via)})")
        out += [("   " + line).rstrip() for line in f.text.rstrip().split("\n")]
    return out


def links(found: Sequence[ResolvedLink], backlinks: bool) -> str:
    if not found:
        return "no backlinks" if backlinks else "no links"
    out = []
    for link in found:
        target = printed(link.ref or "") if link.resolved else "UNRESOLVED"
        flag = " (ambiguous)" if link.ambiguous else ""
        flag += f" (no such {link.missing_what})" if link.section_missing else ""
        where = f"{printed(link.source)}:{link.line}" if backlinks else f"line {link.line}"
        out.append(f"{where}  {link.raw} -> {target}{flag}")
    return "\n".join(out)


def _named(paths: list[str], total: int, shown: int = 3) -> str:
    """": a.md, b.md, c.md and 4 more" (nothing when there is none)."""
    if not paths:
        return ""
    more = f" and {total - shown} more" if total > shown else ""
    return ": " + ", ".join(paths[:shown]) + more


LISTED = 20  # status lines of one kind of problem, the rest counted: --json lists all


def status(s: dict[str, Any]) -> str:
    from vault_engine.sources.vault.changes import stale_counts  # with the ledger's modules: status only

    # a run stopped by a full disk left the words index a step behind, readable: "DAMAGED"
    # there contradicted the run's own "nothing is damaged" (the words index's line comes first)
    behind = bool(s.get("lexical", {}).get("interrupted"))
    damage = [f"{'BEHIND' if behind and n == 0 else 'DAMAGED':<10} {d}" for n, d in enumerate(s.get("damage", []))]
    if "notes" not in s:  # the ledger itself is unreadable: nothing else to count
        return "\n".join([f"vault      {s['vault']}", *damage, f"watcher    {s['watcher'].get('summary', '')}"])
    lines = [
        f"vault      {s['vault']}", *damage,
        f"notes      {s['notes']}  sections {s['sections']}  attachments {s['attachments']}",
        f"links      {s['links']}  unresolved {s['unresolved_links']}  ambiguous {s['ambiguous_links']}"
        f"  missing heading/block {s['section_missing_links']}",
        f"last index {iso(s['last_index'])}",
        f"stale      {stale_counts(s['stale']['changed'], s['stale'].get('new', 0), s['stale']['missing'])}"
        " since the last index"
        + _named(s["stale"].get("paths", []), s["stale"]["changed"] + s["stale"]["missing"])
        + ("; vault-engine.toml changed since: run `vault-engine index`" if s["stale"].get("settings") else ""),
        "lexical    " + (f"{s['lexical']['sections']} sections" if s["lexical"]["sections"] is not None
                            else "unreadable")  # a damaged index cannot count its documents
        + ("" if s["lexical"]["agrees"] else f"  {'OUT OF STEP' if s['lexical'].get('interrupted') else 'DAMAGED'}"
                                             f" ({s['lexical']['damage']}): run `vault-engine index`"),
    ]
    for key, label in (("semantic", "semantic"), ("watcher", "watcher")):
        if key in s and isinstance(s[key], dict) and s[key].get("summary"):
            lines.append(f"{label:<10} {s[key]['summary']}")
    code = s.get("code")
    if code:
        stale = code["stale"]
        fresh = "fresh" if code["fresh"] else f"STALE ({stale['changed']} changed, {stale['missing']} missing)"
        lines.append(f"code       {code.get('files', 0)} files  {code.get('symbols', 0)} symbols  "
                     f"{code.get('edges', 0)} call edges  {code.get('unresolved_calls', 0)} unresolved calls  {fresh}")
        lines += [f"syntax     {e['path']}: {e['error']}" for e in code.get("syntax_errors", [])]
        claimed = code.get("claimed_notes") or []
        if claimed:
            lines.append(f"claimed    {len(claimed)} Markdown file(s) in a code tap's paths, neither notes nor code "
                         f"(e.g. {claimed[0]}): narrow the tap's paths to read them as notes")
    memory = s.get("memory") or {}
    if any(memory.get("facets", {}).values()) or memory.get("unknown_facet"):
        lines.append("memory     " + "  ".join(f"{k} {v}" for k, v in memory["facets"].items()))
        unknown = memory["unknown_facet"]  # the first 20, as links are: 1,000 lines of them had buried the rest (qa82)
        lines += [f"facet      {u['path']}: " + (f"unknown facet {u['facet']!r}" if u["facet"] else "no facet")
                  for u in unknown[:LISTED]]
        if len(unknown) > LISTED:
            lines.append(f"facet      ... and {len(unknown) - LISTED} more memory notes with no known facet "
                         "(--json lists all)")
    elsewhere = s.get("project_elsewhere") or []
    if elsewhere:
        first = elsewhere[0]
        lines.append(f"project    {len(elsewhere)} note(s) under a project folder say another project (the "
                     f"frontmatter wins): {first['path']} says {first['project']!r}, its folder {first['folder']!r}; "
                     "a renamed project folder? fix their project: to move their history")
    for item in s["skipped_files"]:
        lines.append(f"skipped    {item['path']}: {item['reason']}")
    for item in s["yaml_errors"]:
        lines.append(f"note       {item['path']}: {item['error']}")  # YAML errors, slips, conflict markers
    for item in s["unresolved"][:LISTED]:
        lines.append(f"unresolved {item['source']}:{item['line']} {item['raw']}")
    if len(s["unresolved"]) > LISTED:
        lines.append(f"unresolved ... and {len(s['unresolved']) - LISTED} more (--json lists all)")
    for item in s["section_missing"][:LISTED]:
        lines.append(f"{'no ' + item['missing']:<10} {item['source']}:{item['line']} {item['raw']}")
    if len(s["section_missing"]) > LISTED:
        lines.append(f"no heading ... and {len(s['section_missing']) - LISTED} more links to a missing heading or block"
                     " (--json lists all)")
    return "\n".join(lines)


def named(ref: str, title: str | None) -> str:
    """A ref as printed, and a Notion page's title after it: its ref is only its id (qa68)."""
    return f"{printed(ref)}  {printed(title)}" if ref.startswith("notion://") and title else printed(ref)


def decay_rows(rows) -> str:
    out = [f"{'multiplier':>10}  {'age (d)':>8}  {'tap':<10} ref"]
    for r in rows:
        bar = "█" * round(r.multiplier * 10)
        seen = f"  reinforced {iso(r.last_reinforced)}" if r.last_reinforced else ""
        out.append(f"{r.multiplier:>10.3f}  {r.age_days:>8.1f}  {r.tap:<10} {named(r.ref, r.title)}  {bar}{seen}")
    return "\n".join(out)
