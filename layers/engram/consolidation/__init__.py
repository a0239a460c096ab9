"""Consolidation: the memory lifecycle (decay, promotion, gate, merge, reconcile), with lineage, dry run and undo."""
