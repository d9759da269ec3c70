"""The pure change planner (vault_engine/indexing/planner.py)."""

from vault_engine.indexing.planner import plan_changes
from vault_engine.sources.vault.changes import FileStat, find_suspects
from vault_engine.stores.ledger import KnownFile


def known(**files):
    return {p.replace("__", "/").replace("_md", ".md"): KnownFile(p, *v) for p, v in files.items()}


def test_unchanged_stat_is_trusted_without_reading():
    disk = {"a.md": FileStat(10, 1, 1)}
    suspects = find_suspects(disk, {"a.md": KnownFile("a.md", 10, 1, 1, "h1")})
    assert (suspects.changed, suspects.missing, suspects.unchanged) == ((), (), 1)


def test_a_new_change_time_alone_makes_a_suspect():
    """Size and mtime put back on new words (``cp -p``, ``rsync -a``, ``touch -r``): only the
    inode's change time tells."""
    was = {"a.md": KnownFile("a.md", 10, 1, 1, "h1")}
    assert find_suspects({"a.md": FileStat(10, 1, 2)}, was).changed == ("a.md",)


def test_a_change_time_the_ledger_never_knew_is_a_suspect_and_same_content_a_touch():
    was = {"a.md": KnownFile("a.md", 10, 1, None, "h1"), "s.md": KnownFile("s.md", 5, 1, None, None)}
    suspects = find_suspects({"a.md": FileStat(10, 1, 7), "s.md": FileStat(5, 1, 7)}, was)
    assert suspects.changed == ("a.md", "s.md")
    plan = plan_changes(suspects, was, {"a.md": "h1", "s.md": None})
    assert (plan.touched, plan.modified, plan.refused) == (("a.md",), (), ("s.md",))


def test_new_modified_touched_deleted():
    was = {"a.md": KnownFile("a.md", 10, 1, 1, "ha"), "b.md": KnownFile("b.md", 10, 1, 1, "hb"),
           "c.md": KnownFile("c.md", 10, 1, 1, "hc")}
    disk = {"a.md": FileStat(11, 2, 2), "b.md": FileStat(10, 5, 5), "n.md": FileStat(3, 3, 3)}
    suspects = find_suspects(disk, was)
    plan = plan_changes(suspects, was, {"a.md": "ha2", "b.md": "hb", "n.md": "hn"})
    assert plan.new == ("n.md",)
    assert plan.modified == ("a.md",)
    assert plan.touched == ("b.md",)
    assert plan.deleted == ("c.md",)
    assert plan.moved == ()


def test_a_rename_is_a_move_not_a_delete_and_an_add():
    was = {"old/x.md": KnownFile("old/x.md", 10, 1, 1, "hx")}
    disk = {"new/x.md": FileStat(10, 9, 9)}
    plan = plan_changes(find_suspects(disk, was), was, {"new/x.md": "hx"})
    assert plan.moved == (("old/x.md", "new/x.md"),)
    assert plan.new == plan.deleted == ()


def test_identical_copies_pair_by_file_name():
    was = {"a/one.md": KnownFile("a/one.md", 1, 1, 1, "same"), "a/two.md": KnownFile("a/two.md", 1, 1, 1, "same")}
    disk = {"b/two.md": FileStat(1, 2, 2), "b/one.md": FileStat(1, 2, 2)}
    plan = plan_changes(find_suspects(disk, was), was, {"b/one.md": "same", "b/two.md": "same"})
    assert sorted(plan.moved) == [("a/one.md", "b/one.md"), ("a/two.md", "b/two.md")]


def test_unreadable_files_are_refused_never_counted_as_notes():
    """``index`` reports new, modified and unchanged notes, as ``status`` counts them: a file
    that cannot be read is counted with the skipped ones, whether it was a note before or not."""
    was = {"a.md": KnownFile("a.md", 10, 1, 1, "ha")}
    disk = {"a.md": FileStat(12, 2, 2), "bad.md": FileStat(1, 1, 1)}
    plan = plan_changes(find_suspects(disk, was), was, {"a.md": None, "bad.md": None})
    assert plan.refused == ("a.md", "bad.md") and plan.modified == plan.new == plan.touched == ()
    assert not plan.is_empty


def test_a_previously_skipped_file_is_no_note_until_it_can_be_read():
    was = {"s.md": KnownFile("s.md", 5, 1, 1, None), "t.md": KnownFile("t.md", 5, 1, 1, None),
           "gone.md": KnownFile("gone.md", 5, 1, 1, None), "n.md": KnownFile("n.md", 5, 1, 1, "hn")}
    disk = {"s.md": FileStat(6, 2, 2), "t.md": FileStat(5, 1, 1), "n.md": FileStat(5, 1, 1)}
    suspects = find_suspects(disk, was)
    assert suspects.unchanged == 1  # n.md: t.md is still skipped, not an unchanged note
    plan = plan_changes(suspects, was, {"s.md": "h"})
    assert plan.new == ("s.md",)  # readable now: new to the index
    assert (plan.deleted, plan.forgotten) == ((), ("gone.md",))  # never a note: not a deleted one
    assert plan.unchanged == 1 and not plan.is_empty


def test_a_new_note_with_a_deleted_notes_identity_is_that_note_renamed():
    from vault_engine.indexing.planner import ChangePlan, pair_by_identity

    plan = ChangePlan(new=("notion/B 1.md", "c.md"), deleted=("notion/A 1.md", "d.md"))
    paired = pair_by_identity(plan, {"notion/B 1.md": "id1"}, {"notion/A 1.md": "id1", "d.md": "id9"})
    assert (paired.new, paired.deleted, paired.moved) == (("c.md",), ("d.md",), (("notion/A 1.md", "notion/B 1.md"),))
    assert pair_by_identity(plan, {"c.md": "id2"}, {"notion/A 1.md": "id1"}) == plan


def test_a_deleted_and_a_new_note_of_one_name_pair_up_when_most_of_their_words_are_shared():
    from vault_engine.indexing.planner import ChangePlan, pair_by_likeness, rename_candidates

    plan = ChangePlan(new=("b/x.md", "b/y.md", "c/y.md"), deleted=("a/x.md", "a/y.md", "a/z.md"))
    pairs = rename_candidates(plan)
    assert pairs == [("a/x.md", "b/x.md")]  # y: two new notes of that name, none is the one
    words = {"a/x.md": frozenset("one two three four".split()), "b/x.md": frozenset("one two three five".split())}
    moved = pair_by_likeness(plan, pairs, words)  # 3 of 5 words shared: 0.6
    assert (moved.moved, moved.new, moved.deleted) == ((("a/x.md", "b/x.md"),), ("b/y.md", "c/y.md"), ("a/y.md", "a/z.md"))
    words["b/x.md"] = frozenset("one six seven eight".split())  # 1 of 7
    assert pair_by_likeness(plan, pairs, words) == plan
    # the run's only deleted note and only new one, whatever their names (qa49: renamed and
    # edited in one watcher burst)
    alone = ChangePlan(new=("specs/shard-plan-v2.md",), deleted=("specs/search-sharding.md",))
    assert rename_candidates(alone) == [("specs/search-sharding.md", "specs/shard-plan-v2.md")]


def test_many_copies_of_one_content_pair_by_name_then_by_path_and_the_rest_are_new():
    """Notes of one template moved at once (handed out in constant time each, qa149): the
    vanished one of the same file name first, then the first by path; more new copies than
    vanished ones are new notes."""
    was = {f"old/{n}.md": KnownFile(f"old/{n}.md", 1, 1, 1, "tpl") for n in ("a", "b", "c", "d")}
    disk = {p: FileStat(1, 2, 2) for p in ("new/c.md", "new/x.md", "new/a.md", "new/y.md", "new/z.md", "new/w.md")}
    plan = plan_changes(find_suspects(disk, was), was, dict.fromkeys(disk, "tpl"))
    assert sorted(plan.moved) == [("old/a.md", "new/a.md"), ("old/b.md", "new/w.md"),
                                  ("old/c.md", "new/c.md"), ("old/d.md", "new/x.md")]
    assert sorted(plan.new) == ["new/y.md", "new/z.md"] and plan.deleted == ()
