"""Which route of the route table serves a request, and which methods a path has.

API Gateway picks, among the routes of the request's method, the one whose path matches best: a
`GET /v1/memories/batch` reaches `GET /v1/memories/{memory_id}` with memory_id "batch". But
`/v1/memories/batch` is a resource of its own (the batch store, POST only), so `methods_at` gives
a path that a route names literally only that route's methods: the route functions answer 405
with that `Allow` (EngramResolver), and so do the local gateway and OPTIONS.
"""

from __future__ import annotations

import re
from functools import cache

from engram_http.route_table import ROUTES, Route


def _pattern(route: Route) -> re.Pattern[str]:
    return re.compile("^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", route.path) + "$")


@cache
def _patterns() -> tuple[tuple[Route, re.Pattern[str]], ...]:
    return tuple((route, _pattern(route)) for route in ROUTES)


def match(method: str, path: str) -> tuple[Route, dict[str, str]] | None:
    """The route API Gateway would invoke for `method path`, with its path parameters."""
    for route, pattern in _patterns():
        found = pattern.match(path)
        if found and route.method == method:
            return route, found.groupdict()
    return None


def methods_at(path: str) -> list[str]:
    """The methods `path` serves, sorted; none for a path no route has."""
    literal = {route.method for route in ROUTES if route.path == path}
    if literal:
        return sorted(literal)
    return sorted({route.method for route, pattern in _patterns() if pattern.match(path)})


def requested_path(route_key: str, path_parameters: dict[str, str] | None) -> str:
    """The path a function's event asked for, from its route key and parameters (not `rawPath`,
    which a custom domain's base path would prefix)."""
    template = route_key.partition(" ")[2]
    params = path_parameters or {}
    return re.sub(r"\{(\w+)\}", lambda m: params.get(m.group(1), m.group(0)), template)


def method_not_allowed(method: str, path: str, allowed: list[str]) -> tuple[str, dict[str, object]]:
    """The 405 answer's message and details (its `Allow` header: the allowed methods, comma
    separated), one wording for the gateway and the functions."""
    message = f"{method[:20]} is not allowed on {path[:200]}; use {', '.join(allowed)}"
    return message, {"method": method[:20], "allowed": allowed}
