"""Memory that learns: facts, preferences, decisions and dated events derived from conversations and
pushed text, each traceable to the turns it came from."""
