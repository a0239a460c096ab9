"""Route Lambda for the recall routes; the router in engram_http.routes.recall does the work."""

from engram_http.resolver import lambda_handler
from engram_http.routes.recall import router

handler = lambda_handler(router)
