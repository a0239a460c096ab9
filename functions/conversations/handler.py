"""Route Lambda for the conversations routes and namespace purge; the router in
engram_http.routes.conversations does the work."""

from engram_http.resolver import lambda_handler
from engram_http.routes.conversations import router

handler = lambda_handler(router)
