"""Recall: hybrid vector + keyword search, ranked and cut to a budget."""
