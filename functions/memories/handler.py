"""Route Lambda for the memories routes; the router in engram_http.routes.memories does the work."""

from engram_http.resolver import lambda_handler
from engram_http.routes.memories import router

handler = lambda_handler(router)
