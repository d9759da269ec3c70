"""Lines an answer carries beside its hits, saying why it is what it is. Pure functions.

A miss is "a miss, not a guess": when a filter, not the vault, made it one, or when the
query held another search box's operators, the answer says so; an answer that shows a note
holding git's conflict markers says that what it shows may mix both sides of a merge, and a
project's brief says when its folder and its notes' ``project:`` disagree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vault_engine.config import Config
    from vault_engine.stores.ledger import Ledger


def kind_notice(ledger: Ledger, kind: str | None, code_taps: tuple[str, ...] = ()) -> tuple[str, ...]:
    """For a miss filtered by a kind no note is of: that, not the vault's answer, is why.
    ``code_taps``: the code taps the config names (one indexing nothing is no missing tap)."""
    held = ledger.kinds()
    if kind is None or kind in held:
        return ()
    if kind == "code" and code_taps:
        return (f"no source file is indexed: the code tap(s) {', '.join(code_taps)} hold none (their root or "
                "paths: `vault-engine index` names what it skipped)",)
    if kind == "code":
        return ("no source file is indexed: add a code tap ([taps.code] in vault-engine.toml) and run "
                "`vault-engine index`",)
    return (f"no note of kind {kind!r} is indexed (the vault's notes are of kinds: {', '.join(held) or 'none'}); "
            "a note's kind comes from `type:` or a [kinds] rule in vault-engine.toml",)


def filters_notice(ledger: Ledger, kind: str | None, project: str | None, tap: str | None) -> tuple[str, ...]:
    """For a miss filtered by two or more filters that no note passes together, though each
    alone holds sections: the combination, not the vault's answer, is why (`--kind code
    --project P` can never match: source files belong to no project, qa24 #5)."""
    given = [(name, value) for name, value in (("kind", kind), ("project", project), ("tap", tap))
             if value is not None]
    if len(given) < 2 or ledger.section_ids_where(kind, project, tap):
        return ()
    said = " and ".join(f"--{name} {value}" for name, value in given)
    why = " (source files belong to no project)" if kind == "code" and project else ""
    return (f"no note is {said} at once{why}: the miss is the filters', not the vault's; drop one of them",)


# What a search says of a symbol it was given: neither arm reads one. The examples are
# several symbols' words: "🚀" alone had been told to search 'recurring', 'due date' (qa83).
UNREAD_SYMBOLS = ("the words index holds no symbols, and the model reads pictographs as one unknown sign; search "
                  "with the words the symbol stands for (🔁 'recurring', 📅 'due date', 🚀 'launch')")


def symbols_notice(query: str) -> list[str]:
    """One line when the query writes a pictograph beside its words: the answer is for the
    words (its confidence is never ``high``: retrieval/confidence.py)."""
    from vault_engine.stores.lexical import symbols_in

    unread = "".join(symbols_in(query))
    return [f"{unread!r} is no word, so the answer is for the rest of the query: {UNREAD_SYMBOLS}"] if unread else []


def operators_notice(query: str) -> list[str]:
    """One line when the query holds another search box's operators, which are searched as
    words here: "kafka -debezium" put Debezium first, and the user took it for excluded."""
    from vault_engine.stores.lexical import operators_in

    found = operators_in(query)
    if not found:
        return []
    return [f"searched as words, not operators: {', '.join(found[:5])} (search takes words and \"quoted "
            "phrases\"; narrow with --kind, --project or --tap)"]


def misread(ledger: Ledger, shown: set[str], what: str) -> tuple[str, ...]:
    """A line for each note of ``shown`` the index could not read as written, as ``status``
    says it: git's conflict markers (``what`` an answer shows of it mixes both sides of a
    merge: a checkpoint's Failed reasons ended in ">>>>>>> 4bde98", and an agent acted on the
    half-merged hand-off, qa25 #4), a checkpoint's part under a misspelt heading, broken YAML
    (a brief handed on a checkpoint under ``## Faild`` as if it had failed nothing, qa140)."""
    from vault_engine.parsing.note import CONFLICT_MARKERS

    if not shown:
        return ()
    return tuple(f"{path} holds {CONFLICT_MARKERS}: {what} may mix both sides of a merge; resolve it"
                 if CONFLICT_MARKERS in error else f"{path}: {error}"
                 for path, error in ledger.yaml_errors() if path in shown)


def folder_disagrees(ledger: Ledger, config: Config, project: str) -> tuple[str, ...]:
    """For a brief or a list of ``project``: notes in its folder that name another project,
    and its own notes in another project's folder. A note's ``project:`` wins over its folder,
    so a renamed project folder left half a history under the old name, and the new name's
    brief left it out without a word while the old name's handed on a done plan (qa94)."""
    from collections import defaultdict

    from vault_engine.parsing.note import folder_project

    here: defaultdict[str, int] = defaultdict(int)  # other project -> notes of it in this folder
    away: defaultdict[str, int] = defaultdict(int)  # other folder -> notes of this project in it
    for path, named in ledger.projects_under(config.projects_dir):
        folder = folder_project(path, config)
        if folder == project and named != project:
            here[named] += 1
        elif named == project and folder not in (None, project):
            away[str(folder)] += 1
    lines = [f"{n} note(s) in {config.project_folder(project)}/ say `project: {other}` (a renamed project "
             f"folder?): their checkpoints and dead ends count as {other}'s, not {project}'s; set "
             f"`project: {project}` in them to make them this project's" for other, n in sorted(here.items())]
    lines += [f"{n} note(s) of {project} lie in {config.project_folder(folder)}/, the folder of project "
              f"{folder} (a renamed project folder?): set `project: {folder}` in them if they are {folder}'s now"
              for folder, n in sorted(away.items())]
    return tuple(lines)
