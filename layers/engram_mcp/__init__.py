"""MCP: the remote server at /mcp (Engram's tools over streamable HTTP, served by the `mcp` Lambda) and
the stdio bridge `engram mcp` runs for local clients, which forwards to it."""
