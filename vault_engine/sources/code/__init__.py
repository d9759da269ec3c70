"""The code tap's library layer: parse source files with tree-sitter into symbols, imports and
calls (``symbols.parse_source``), and resolve calls across files by scope rules
(``callgraph.resolve``). No ledger, no CLI: the indexer stores what these return."""
