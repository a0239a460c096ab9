"""Routers, one per capability; engram_http.api lists them all, functions/<name>/handler.py includes
the ones it serves."""
