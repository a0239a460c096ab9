"""Priming: what an agent should know before it starts (resume) and before a task (prime)."""
