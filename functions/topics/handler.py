"""Route Lambda for topics, resume and prime; the routers in engram_http.routes do the work."""

from engram_http.resolver import lambda_handler
from engram_http.routes.priming import router as priming_router
from engram_http.routes.topics import router as topics_router

handler = lambda_handler(topics_router, priming_router)
