"""Route Lambda for exports and imports; engram_http.routes.portability does the work."""

from engram_http.resolver import lambda_handler
from engram_http.routes.portability import router

handler = lambda_handler(router)
