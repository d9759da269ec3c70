"""The code tap, a tap that reads in place: files.py finds the source files under its root (the
vault, a folder of it, or a repository beside it) and names them (``repo:pkg/a.py`` outside
the vault); tree-sitter parses them into symbols, imports and calls (``symbols.parse_source``),
and calls are resolved across files by scope rules (``callgraph.resolve``). No ledger, no
CLI: the indexer stores what these return."""
