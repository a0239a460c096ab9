"""Route Lambda for the memory console's static files (GET /console, GET /console/{asset}); the
files ship in this folder's static/, engram_http.console serves them with their headers."""

from pathlib import Path

from engram_http.console import console_handler

handler = console_handler(Path(__file__).parent / "static")
