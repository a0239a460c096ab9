"""Route Lambda for the task routes; the router in engram_http.routes.tasks does the work."""

from engram_http.resolver import lambda_handler
from engram_http.routes.tasks import router

handler = lambda_handler(router)
