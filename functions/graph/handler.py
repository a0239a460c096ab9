"""Route Lambda for the graph routes; the router in engram_http.routes.graph does the work."""

from engram_http.resolver import lambda_handler
from engram_http.routes.graph import router

handler = lambda_handler(router)
