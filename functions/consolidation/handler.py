"""Route Lambda for the consolidation routes; the router in engram_http.routes.consolidation does the work."""

from engram_http.resolver import lambda_handler
from engram_http.routes.consolidation import router

handler = lambda_handler(router)
