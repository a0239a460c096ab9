"""Operations: the engram command line, migrations with the embedder registered, backfill."""
