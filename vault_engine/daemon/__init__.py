"""The warm daemon: the watcher and the query server behind `vault-engine watch`."""
