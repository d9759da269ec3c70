"""What changed since the last index, and the line an answer carries about it.

An answer read from the index (a search's hits, a dead-end check, a brief, ``show``) is the
vault's only while the index holds what the files say. These checks compare the two (the
files' content, not their times), and the settings the index was built with, and say so in
one line with what to run, or nothing while a live watcher applies every edit itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from vault_engine.config import SETTINGS_META

if TYPE_CHECKING:
    from vault_engine.config import Config
    from vault_engine.sources.vault.changes import Suspects
    from vault_engine.sources.vault.files import Scan
    from vault_engine.stores.ledger import Ledger


class Drift:
    """The vault's files and settings against its index, for one Vault: ``live_watcher``
    gives the live watcher's status (None when none applies edits), ``model_enabled``
    whether the config embeds."""

    def __init__(self, config: Config, live_watcher: Callable[[], dict[str, Any] | None],
                 model_enabled: Callable[[], bool]):
        self.config = config
        self.root = config.root
        self.live_watcher = live_watcher
        self.model_enabled = model_enabled

    def hits_stale(self, ledger: Ledger, paths: Iterable[str], again: str) -> tuple[str, ...]:
        """A line for the notes an answer cites (``paths``) that were deleted, moved or changed
        since the last index, as ``show`` tells (their content, not their file times: a copy of
        the vault said every hit had changed, qa53): with no watcher to apply them, a hit on a
        note gone read as the vault's answer (qa49), and a hit on a note edited since showed
        the text it no longer says (qa52)."""
        found: dict[str, list[str]] = {"gone": [], "changed": [], "unreadable": []}
        for path in dict.fromkeys(paths):  # a current file costs a stat; a touched or copied one a read
            change = self.change_since_index(ledger, path)
            if change is not None:
                found[change].append(path)
        if not any(found.values()):
            return ()
        # A running watcher applies them in a moment, and said nothing meanwhile: a note a
        # `git checkout` had just taken away came back as a hit without a word (qa61)
        do = f"{again} again in a moment: the running watcher is applying it" if self.live_watcher() \
            else f"run {self.index_command(ledger)} and {again} again"
        lines = []
        for notes, what in ((found["gone"], "were deleted or moved"), (found["changed"], "changed")):
            if notes:
                shown = ", ".join(notes[:3]) + (f" and {len(notes) - 3} more" if len(notes) > 3 else "")
                lines.append(f"{len(notes)} note(s) of this answer {what} since the last index ({shown}): {do}")
        if found["unreadable"]:
            lines.append(f"{len(found['unreadable'])} note(s) of this answer cannot be read (permission denied) "
                         f"({', '.join(found['unreadable'][:3])}): make them readable again")
        return tuple(lines)

    def answer_stale(self, ledger: Ledger, paths: Iterable[str], again: str, under: str = "") -> tuple[str, ...]:
        """The line an answer from the index carries: the notes it cites (``paths``) deleted,
        moved or changed since the last index (:meth:`hits_stale`), else the vault (its folder
        ``under``) changed (:meth:`stale_notice`). Its own notes are looked at even while a
        watcher runs: a move out of the vault, or into `.trash/`, reaches the watcher half a
        second late, and `resume` had handed on the checkpoint moved away without a word (qa146)."""
        return self.hits_stale(ledger, paths, again) or self.stale_notice(ledger, again, under=under)

    def stale_notice(self, ledger: Ledger, again: str, under: str = "") -> tuple[str, ...]:
        """For a miss (of ``search`` or ``deadend check``, named by ``again``) or a brief: one
        line when the vault (or its folder ``under``) changed since the last index, so that
        the answer is not taken for the vault's. A stat of every file there (as ``status``
        counts stale files); none while a watcher applies every edit itself, once it has caught
        up: a miss while it catches up on a pull said nothing, for as long as 19 s (qa39 F1)."""
        watcher = self.live_watcher()
        if watcher is not None:  # its count of pending edits is 0 while it catches up: it reads none then
            if watcher["state"] == "catching-up":
                return (f"the running watcher is catching up on changes made while it was not running "
                        f"(the answer may be there): {again} again in a moment",)
            pending = watcher.get("pending") or 0
            # a batch too long to wait for (the watcher answered `busy`, and this answer is the
            # index's as it stands): a miss had said nothing, a note saved before it unseen (qa161)
            return (f"the running watcher is applying changes to the index (the answer may be there): "
                    f"{again} again in a moment",) if pending else ()  # its count is of events, not notes (qa164)
        settings = self.settings_notice(ledger, again)
        _, suspects = self.changes_since_index(ledger, under)
        if not suspects.changed and not suspects.missing:
            return settings
        where = f" in {under}/" if under else ""
        return (f"the index is stale: {suspects.said()}{where} since the last index (the answer "
                f"may be there); run {self.index_command(ledger)} and {again} again", *settings)

    def settings_changed(self, ledger: Ledger) -> bool:
        """Whether vault-engine.toml's ``[kinds]``, ``[taps]``, ``projects_dir``, ``max_file_mb``
        or ``exclude`` changed since the last index, which still holds what the old ones gave (a
        new tap's `search --tap` was "a miss, not a guess", qa87); never while a watcher runs (it
        reads every note again when the file changes) or for an index built before the settings
        were recorded."""
        built_with = ledger.get_meta(SETTINGS_META)
        return built_with not in (None, self.config.settings_key) and self.live_watcher() is None

    def settings_notice(self, ledger: Ledger, again: str) -> tuple[str, ...]:
        """The line an answer carries when :meth:`settings_changed`."""
        if not self.settings_changed(ledger):
            return ()
        return (f"vault-engine.toml changed since the last index ([kinds], [taps], projects_dir, max_file_mb or "
                f"exclude): the index still holds what the old settings gave; run {self.index_command(ledger)} "
                f"and {again} again",)

    def index_command(self, ledger: Ledger) -> str:
        """The `index` to advise: with `--no-embed` for an index of words only (built so), where
        the plain command would embed every section first (qa82: 9 minutes at 47,824 sections,
        unasked)."""
        words_only = self.model_enabled() and ledger.section_count() and not ledger.embedded_counts()[0]
        return "`vault-engine index --no-embed` (words only, as this index holds)" if words_only \
            else "`vault-engine index`"

    def changes_since_index(self, ledger: Ledger, under: str = "") -> tuple[Scan, Suspects]:
        """The scan of the vault (and its code taps), or of its folder ``under`` alone, and
        what changed there since the last index: files whose bytes differ (a touch or a copy
        that keeps them is no change), and files gone."""
        from vault_engine.indexing.code_sync import add_code_files
        from vault_engine.sources.code.files import code_taps, file_of
        from vault_engine.sources.vault.changes import content_changed, find_suspects
        from vault_engine.sources.vault.files import scan_vault

        scan = scan_vault(self.config, under)
        known, taps = ledger.known_files(), code_taps(self.config)
        if under:
            known = {path: k for path, k in known.items() if path.startswith(f"{under}/")}
        else:
            add_code_files(self.config, scan)
        return scan, content_changed(find_suspects(scan.notes, known), known,
                                     lambda key: file_of(taps, self.root, key), self.config.max_file_bytes)

    def change_since_index(self, ledger: Ledger, rel_path: str) -> str | None:
        """``"changed"`` or ``"gone"`` when the note's file is not what the index holds, else None."""
        known = ledger.known_note(rel_path)
        return known.change_at(self.root / rel_path) if known else None

    def changed_notice(self, rel_path: str, change: str | None, whole: bool) -> tuple[str, ...]:
        """One line when the note's file is not what the index holds: a section, or a gone
        note, is shown as indexed; a whole note as the file is now (with the indexed sections
        and links)."""
        if change is None:
            return ()
        watched = self.live_watcher() is not None and self.watched(rel_path)
        fix = ("the running watcher indexes it in a moment" if watched
               else "run `vault-engine index` to bring the index up to date")
        if change == "gone":
            return (f"{rel_path} is gone (moved or deleted) since the last index: this is its indexed "
                    f"text; {fix}",)
        if change == "unreadable":  # not gone: `index` would drop what it cannot read (qa137)
            return (f"{rel_path} cannot be read (permission denied): this is its indexed text; make it "
                    "readable again (an `index` meanwhile leaves it out)",)
        shown = ("the text is the file as it is now, its sections and links as they were indexed" if whole
                 else "this section is shown as it was indexed")
        return (f"{rel_path} changed since the last index: {shown}; {fix}",)

    def watched(self, rel_path: str) -> bool:
        """Whether the watcher sees a change of the note: not of a symlink's target outside
        the vault (``outside_symlinks = true``), which no event of the vault names."""
        try:
            return (self.root / rel_path).resolve().is_relative_to(self.root.resolve())
        except (OSError, RuntimeError):
            return True
