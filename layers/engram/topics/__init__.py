"""Topics: the topic tree of a namespace (clustering, stable ids, names), its lookups and upkeep."""
