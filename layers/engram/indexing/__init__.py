"""How text becomes searchable: chunking and the embedding vectors of chunks."""
