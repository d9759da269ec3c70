"""The names of everything vault-engine keeps under ``.vault-engine/``, in one place.

```
.vault-engine/                 STATE_DIR (0700)
  write.lock                   WRITE_LOCK: the writer's flock
  daemon.pid  daemon.sock      PID_FILE, SOCKET_FILE: the watcher's lock and socket
  watch.json                   HEALTH_FILE: the watcher's heartbeat and health
  notion-sync.json             NOTION_SYNC_FILE: the pages the last `notion sync` left notes of
  ledger/                      LEDGER_DIR: durable, never derived
    reinforcements.jsonl       REINFORCEMENTS_FILE
  index/                       INDEX_DIR: derived, deletable
    current -> g<n>/           CURRENT, GENERATION_PREFIX: the generation readers use
      ledger.sqlite            LEDGER_FILE
      whoosh/                  WHOOSH_DIR
      vectors.faiss            VECTORS_FILE
      vector_cache.sqlite      VECTOR_CACHE_FILE: section vectors by text hash
      deadend_vectors.sqlite   RULING_CACHE_FILE: ruling vectors by text hash
      code.sqlite              CODE_FILE: symbols and the call graph of code taps
      query-model-*.onnx       QUERY_MODEL_PREFIX: the model's ONNX export
```

Only names: the folders themselves come from :class:`vault_engine.config.Config`
(``state_dir``, ``index_root``, ``index_dir``, ``ledger_dir``). Imports nothing, so the
daemon client can use it on its fast path.
"""

STATE_DIR = ".vault-engine"
WRITE_LOCK = "write.lock"
PID_FILE = "daemon.pid"
SOCKET_FILE = "daemon.sock"
HEALTH_FILE = "watch.json"
NOTION_SYNC_FILE = "notion-sync.json"

LEDGER_DIR = "ledger"
REINFORCEMENTS_FILE = "reinforcements.jsonl"

INDEX_DIR = "index"
CURRENT = "current"
GENERATION_PREFIX = "g"
LEDGER_FILE = "ledger.sqlite"
WHOOSH_DIR = "whoosh"
VECTORS_FILE = "vectors.faiss"
VECTOR_CACHE_FILE = "vector_cache.sqlite"
RULING_CACHE_FILE = "deadend_vectors.sqlite"
CODE_FILE = "code.sqlite"
QUERY_MODEL_PREFIX = "query-model-"

# The SQLite caches a new generation carries over from the live one (through the backup API).
CACHES = (VECTOR_CACHE_FILE, RULING_CACHE_FILE)
