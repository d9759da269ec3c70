"""The MCP shell: one tool per row of :mod:`vault_engine.operations`, over stdio."""
