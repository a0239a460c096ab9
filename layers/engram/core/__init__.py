"""The kernel every package uses: settings, database connections and tenant transactions, errors,
pagination, text helpers, the shared edge-model types."""
