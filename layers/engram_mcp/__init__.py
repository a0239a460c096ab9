"""The remote MCP server at /mcp: Engram's tools over streamable HTTP, served by the `mcp` Lambda."""
