"""Task runs: a long task's event ledger (a conversation), checkpoints, and a bounded context to resume it."""
