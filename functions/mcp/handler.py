"""Route Lambda for the remote MCP endpoint (POST /mcp); engram_mcp.transport does the work."""

from engram_mcp.transport import lambda_handler

handler = lambda_handler()
