"""The steps of a consolidation cycle. Each call does one batch of one step inside the caller's
transaction and returns its actions and where the step continues (None: the step is finished).

A step never commits: the service writes the actions and moves the checkpoint in the same
transaction, so a batch is applied once or not at all. In a dry run the same code plans instead
of applying (`ctx.apply` is False) and LLM-dependent actions become candidates, with no call.

One module per step; `engram.consolidation.cycle` sequences them.
"""
