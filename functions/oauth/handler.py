"""Route Lambda for OAuth (the MCP connectors' authorization server) and /v1/grants; the router in
engram_http.routes.oauth does the work."""

from engram_http.routes.oauth import lambda_handler

handler = lambda_handler()
