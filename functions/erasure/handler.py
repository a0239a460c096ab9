"""Route Lambda for erasure (a memory, a subject, the tenant); engram_http.routes.erasure does the work."""

from engram_http.resolver import lambda_handler
from engram_http.routes.erasure import router

handler = lambda_handler(router)
