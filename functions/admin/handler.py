"""Route Lambda for the admin routes: health (engram_http.routes.health), the OpenAPI document
(engram_http.api) and the tenant's statistics, keys and purge (engram_http.routes.admin)."""

from engram_http.api import document_router
from engram_http.resolver import lambda_handler
from engram_http.routes import admin, health

handler = lambda_handler(health.router, document_router, admin.router)
