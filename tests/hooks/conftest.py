"""The hooks tests use the MCP tests' indexed copy of sample-vault/ and the daemon tests' watcher."""

from tests.daemon.conftest import start_daemon  # noqa: F401  (a fixture)
from tests.mcp.conftest import indexed_sample  # noqa: F401  (a fixture)
