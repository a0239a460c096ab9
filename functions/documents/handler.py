"""Route Lambda for documents, uploads and query-document; engram_http.routes.documents does the work."""

from engram_http.resolver import lambda_handler
from engram_http.routes.documents import router

handler = lambda_handler(router)
