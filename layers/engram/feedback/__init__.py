"""Feedback on recall: which results helped, which did not, and the bounded, decaying ranking weights it leaves."""
