"""HTTP adapter shared by the route Lambdas: routers, error shaping, auth context, OpenAPI."""
