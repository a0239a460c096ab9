"""Route Lambda for derived memories (POST /v1/extract, extraction runs and settings); the router in
engram_http.routes.extraction does the work."""

from engram_http.resolver import lambda_handler
from engram_http.routes.extraction import router

handler = lambda_handler(router)
