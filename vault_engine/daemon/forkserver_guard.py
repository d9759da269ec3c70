"""Imported by the watcher's forkserver alone (``set_forkserver_preload``): the server dies
with the watcher, and every worker it forks (the reading pool, Whoosh's two writers) with the
server. A watcher killed (``kill -9``) during a batch of 4,000 sections had left the server
and both writers behind for good, the writers blocked on a pipe nobody read (qa173); a worker
forked by the watcher itself already died with it (locks.py). A Ctrl-C ends the workers
without a traceback, as it does those of ``index``."""

from __future__ import annotations

import os

from vault_engine.locks import die_with_parent, quiet_on_interrupt

die_with_parent()  # the watcher started the server from its main thread, which lives as long as it
os.register_at_fork(after_in_child=die_with_parent)
quiet_on_interrupt()  # the server keeps this handler aside and gives it back to each worker it forks
