"""OAuth 2.1 for the remote MCP endpoint: the API is its own authorization server (issue 25)."""
