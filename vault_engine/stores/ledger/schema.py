"""The ledger's tables, in one piece (each entity's module reads and writes its own).

The ledger is derived state: a version without a migration step is dropped and rebuilt from
the notes.
"""

from __future__ import annotations

SCHEMA_VERSION = 15  # 2: dead_ends, 3: embedded, 4: dead_ends.terms, 5: apostrophes, 6: 2 Whoosh fields,
# 7: one Whoosh field, empty headings folded into their subsection, 8: decision records, accepted,
# 9: ruling_words, 10: notes.ctime_ns and skipped.ctime_ns, 11: sections.anchor,
# 12: dead_ends.record_title and record_status, 13: dead_ends.described_at, 14: notes.edited_at,
# 15: accepted.in_force

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS notes (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    name_key TEXT NOT NULL,          -- casefolded file name without .md, for link resolution
    title TEXT NOT NULL,
    kind TEXT NOT NULL,
    project TEXT,
    tap TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    ctime_ns INTEGER,                -- the inode's change time; NULL: not known (a ledger of version 9)
    hash TEXT NOT NULL,
    doc_time REAL,                   -- the note's own date (frontmatter), Unix seconds
    meta TEXT NOT NULL,              -- frontmatter as JSON
    yaml_error TEXT,
    notion_id TEXT,
    indexed_at REAL NOT NULL,
    edited_at REAL                   -- when an index read its present content, changed; NULL: not seen
);
CREATE INDEX IF NOT EXISTS notes_name ON notes(name_key);
CREATE INDEX IF NOT EXISTS notes_project ON notes(project, kind);
CREATE INDEX IF NOT EXISTS notes_notion ON notes(notion_id);
CREATE TABLE IF NOT EXISTS sections (
    id INTEGER PRIMARY KEY,
    note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
    ord INTEGER NOT NULL,
    heading TEXT,
    heading_path TEXT NOT NULL,      -- JSON list
    level INTEGER NOT NULL,
    line_start INTEGER NOT NULL,
    line_end INTEGER NOT NULL,
    text TEXT NOT NULL,
    hash TEXT NOT NULL,
    anchor TEXT                      -- the heading path's end that names it alone; NULL: its heading
);
CREATE INDEX IF NOT EXISTS sections_note ON sections(note_id, ord);
CREATE TABLE IF NOT EXISTS links (
    id INTEGER PRIMARY KEY,
    note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
    line INTEGER NOT NULL,
    raw TEXT NOT NULL,
    target TEXT NOT NULL,
    subpath TEXT,
    display TEXT,
    embed INTEGER NOT NULL,
    style TEXT NOT NULL,
    target_key TEXT NOT NULL,        -- casefolded last component of target (see links.target_key)
    target_path TEXT,                -- NULL when unresolved
    ambiguous INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS links_note ON links(note_id);
CREATE INDEX IF NOT EXISTS links_key ON links(target_key);
CREATE INDEX IF NOT EXISTS links_target ON links(target_path);
CREATE TABLE IF NOT EXISTS tags (
    note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
    tag TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tags_note ON tags(note_id);
CREATE INDEX IF NOT EXISTS tags_tag ON tags(tag);
CREATE TABLE IF NOT EXISTS attachments (
    path TEXT PRIMARY KEY,
    name_key TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS reinforcements (  -- replayed from ledger/reinforcements.jsonl
    path TEXT PRIMARY KEY,
    last_at REAL NOT NULL,
    count INTEGER NOT NULL,
    last_by TEXT,
    last_why TEXT
);
CREATE TABLE IF NOT EXISTS dead_ends (  -- Failed items, working-note markers, rejected options
    id INTEGER PRIMARY KEY,
    note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
    ord INTEGER NOT NULL,
    text TEXT NOT NULL,
    reason TEXT,
    source TEXT NOT NULL,            -- "checkpoint" | "working note" | "decision record"
    line INTEGER NOT NULL,
    heading TEXT,
    slug TEXT NOT NULL,
    agent TEXT,
    at REAL,                         -- the note's created date; NULL: undated (use mtime)
    detail TEXT,                     -- its description as written (a record's text under an option)
    terms TEXT NOT NULL,             -- analyze(match_text(text)), space-separated: deadend check
    lead_terms TEXT NOT NULL,        -- the same of the description's first sentence ('' without one)
    record_title TEXT,               -- a decision record's title (the question it decided)
    record_status TEXT,              -- its status when no longer in force ("superseded by ADR-0057")
    described_at INTEGER             -- the line where a record argues it apart from its listing
);
CREATE INDEX IF NOT EXISTS dead_ends_note ON dead_ends(note_id);
CREATE TABLE IF NOT EXISTS ruling_words (  -- deadend check's word index: each word of dead_ends.terms
    dead_end_id INTEGER NOT NULL REFERENCES dead_ends(id) ON DELETE CASCADE,
    term TEXT NOT NULL,
    lead INTEGER NOT NULL            -- 1: a word of lead_terms (not counted in how rare a word is)
);
CREATE INDEX IF NOT EXISTS ruling_words_term ON ruling_words(term, lead, dead_end_id);  -- covers a check
CREATE INDEX IF NOT EXISTS ruling_words_dead_end ON ruling_words(dead_end_id);
CREATE TABLE IF NOT EXISTS accepted (  -- what a note records as chosen: Goal, Decision, chosen option
    note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
    ord INTEGER NOT NULL,
    text TEXT NOT NULL,
    line INTEGER NOT NULL,
    heading TEXT,
    in_force INTEGER NOT NULL DEFAULT 1  -- 0: a record superseded or withdrawn chose it
);
CREATE INDEX IF NOT EXISTS accepted_note ON accepted(note_id);
CREATE TABLE IF NOT EXISTS skipped (
    path TEXT PRIMARY KEY,
    reason TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    ctime_ns INTEGER                 -- as notes.ctime_ns
);
CREATE TABLE IF NOT EXISTS embedded (  -- sections whose vectors are in vectors.faiss
    section_id INTEGER PRIMARY KEY REFERENCES sections(id) ON DELETE CASCADE,
    windows INTEGER NOT NULL         -- how many vectors (windows) the section has
);
"""

# Each entry upgrades a ledger from version N-1 to N. The index is derived, so a version
# without a migration step is rebuilt from the notes instead.
MIGRATIONS: dict[int, str] = {
    3: "",  # the embedded table, created by SCHEMA
    9: """
CREATE TABLE ruling_words (dead_end_id INTEGER NOT NULL REFERENCES dead_ends(id) ON DELETE CASCADE,
                           term TEXT NOT NULL, lead INTEGER NOT NULL);
INSERT INTO ruling_words(dead_end_id, term, lead)  -- the stored space-separated words, split
WITH RECURSIVE split(id, lead, word, rest) AS (
    SELECT id, 0, '', terms || ' ' FROM dead_ends
    UNION ALL SELECT id, 1, '', lead_terms || ' ' FROM dead_ends
    UNION ALL SELECT id, lead, substr(rest, 1, instr(rest, ' ') - 1), substr(rest, instr(rest, ' ') + 1)
              FROM split WHERE rest <> '')
SELECT DISTINCT id, word, lead FROM split WHERE word <> '';
""",
    # Not known: the planner hashes each file once (unchanged content is a touch, which
    # records it), where a rebuild would parse and embed every note again.
    10: """
ALTER TABLE notes ADD COLUMN ctime_ns INTEGER;
ALTER TABLE skipped ADD COLUMN ctime_ns INTEGER;
""",
    11: "ALTER TABLE sections ADD COLUMN anchor TEXT;",  # filled as notes are read again (EXTRACTION_VERSION)
    12: """
ALTER TABLE dead_ends ADD COLUMN record_title TEXT;
ALTER TABLE dead_ends ADD COLUMN record_status TEXT;
""",
    13: "ALTER TABLE dead_ends ADD COLUMN described_at INTEGER;",  # filled as notes are read again
    14: "ALTER TABLE notes ADD COLUMN edited_at REAL;",  # known from the next edit an index reads
    15: "ALTER TABLE accepted ADD COLUMN in_force INTEGER NOT NULL DEFAULT 1;",  # filled as notes are read again
}
