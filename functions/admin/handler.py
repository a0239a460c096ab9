"""Route Lambda for the admin routes; the router in engram_http.routes.admin does the work."""

from engram_http.resolver import lambda_handler
from engram_http.routes.admin import router

handler = lambda_handler(router)
