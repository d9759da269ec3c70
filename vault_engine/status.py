"""What ``vault-engine status`` reports, assembled from what the stores and the vault say.

It reads what it reports (the ledger's counts and links, the words index's health; the Vault
passes the vault's scan against the ledger, the semantic arm's state and the watcher's), and
writes nothing: nothing is indexed, repaired or loaded here, no model either.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from vault_engine.errors import IndexDamaged

if TYPE_CHECKING:
    from vault_engine.config import Config
    from vault_engine.sources.vault.changes import Suspects
    from vault_engine.sources.vault.files import Scan
    from vault_engine.stores.ledger import Ledger
    from vault_engine.stores.lexical import WhooshIndex

STALE_PATHS_SHOWN = 20  # of the files changed or missing since the last index, in `status --json`


def vault_status(config: Config, ledger: Ledger, lexical: WhooshIndex, scan: Scan, suspects: Suspects,
                 semantic: dict[str, Any], watcher: dict[str, Any], writing: Callable[[], bool],
                 settings_changed: bool = False) -> dict[str, Any]:
    """Counts, stale and skipped files, broken YAML, unresolved links and links to missing
    sections, the words index, the semantic arm (``semantic``), the watcher (``watcher``),
    the code taps, the memory facets, and notes whose project is not their folder's.
    ``scan`` and ``suspects`` are the vault as it is now and what changed since the index;
    ``settings_changed``, whether vault-engine.toml's reading settings did.

    While another process writes the index (``writing()``: it holds the writer lock), Whoosh's
    files change before the ledger's record of them: that is not judged, as search does not
    (a healthy `index` run and a watcher catching up were called damaged for 9 s, qa39 F2)."""
    from vault_engine.indexing.code_sync import code_status
    from vault_engine.indexing.integrity import INTERRUPTED, damage_line, lexical_damage
    from vault_engine.retrieval.find.memory import facet_counts
    from vault_engine.retrieval.follow import resolved_link
    from vault_engine.retrieval.lookup import with_missing_sections
    from vault_engine.sources.vault.files import still_skipped

    counts = ledger.counts()
    unresolved = [resolved_link(r) for r in ledger.unresolved_links()]
    checked = with_missing_sections(ledger, (resolved_link(r) for r in ledger.links_with_subpath()))
    section_missing = [link for link in checked if link.section_missing]
    words_damage = None if writing() else lexical_damage(ledger, lexical)
    words_damage = None if words_damage and writing() else words_damage  # one started meanwhile
    damage = [damage_line(words_damage)] if words_damage else []
    damage += [f"the vector index is damaged: {semantic['damage']}; `vault-engine index` repairs it"] \
        if semantic.get("damage") else []
    skipped = still_skipped(ledger, scan)  # as `index` reports them
    return {
        "vault": str(config.root),
        "damage": damage,
        **counts,
        "skipped": len(skipped),
        "stale": {"changed": len(suspects.changed), "missing": len(suspects.missing), "new": len(suspects.new),
                  # which, after a `git pull`: the counts alone left a team guessing (qa25 #9)
                  "paths": sorted([*suspects.changed, *suspects.missing])[:STALE_PATHS_SHOWN],
                  # vault-engine.toml's reading settings changed since: a new tap did nothing and
                  # status said "0 changed" (qa87)
                  "settings": settings_changed},
        "skipped_files": [{"path": file.path, "reason": file.reason} for file in skipped],
        "yaml_errors": [{"path": p, "error": e} for p, e in ledger.yaml_errors()],
        "unresolved": [{"source": link.source, "raw": link.raw, "line": link.line} for link in unresolved],
        "section_missing_links": len(section_missing),
        "section_missing": [{"source": link.source, "raw": link.raw, "line": link.line, "ref": link.ref,
                             "missing": link.missing_what} for link in section_missing],
        "last_index": ledger.last_index(),
        "lexical": {"sections": _lexical_sections(lexical), "agrees": words_damage is None, "damage": words_damage,
                    "interrupted": words_damage == INTERRUPTED},
        "reinforcements": len(ledger.reinforcements()),
        "watcher": watcher,
        "semantic": semantic,
        "code": code_status(config, suspects, scan.claimed),
        "memory": facet_counts(ledger),
        "project_elsewhere": _project_elsewhere(ledger, config),
    }


def _lexical_sections(lexical: WhooshIndex) -> int | None:
    """How many sections the words index holds; None when it cannot be read (one out of
    step with the ledger, after a killed run, still counts: searches read it)."""
    try:
        return lexical.doc_count()
    except IndexDamaged:
        return None


def _project_elsewhere(ledger: Ledger, config: Config) -> list[dict[str, str]]:
    """Notes under ``projects/<folder>/`` whose ``project:`` names another project: the
    frontmatter wins, so a renamed project folder leaves its history under the old name
    (the brief of the new name showed none of it, and nothing said why)."""
    from vault_engine.parsing.note import folder_project

    found = []
    for path, project in ledger.projects_under(config.projects_dir):  # no note's meta read
        folder = folder_project(path, config)
        if folder is not None and project != folder:
            found.append({"path": path, "project": project, "folder": folder})
    return found
