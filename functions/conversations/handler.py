"""Route Lambda for the conversations routes and namespace purge, and the task routes (a task's events are
a conversation's messages); the routers in engram_http.routes.conversations and .tasks do the work."""

from engram_http.resolver import lambda_handler
from engram_http.routes.conversations import router
from engram_http.routes.tasks import router as task_router

handler = lambda_handler(router, task_router)
