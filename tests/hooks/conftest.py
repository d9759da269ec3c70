"""The hooks tests use the MCP tests' indexed copy of sample-vault/."""

from tests.mcp.conftest import indexed_sample  # noqa: F401  (a fixture)
