"""The temporal graph: typed, directed, time-bounded links between memories, traversal and history."""
