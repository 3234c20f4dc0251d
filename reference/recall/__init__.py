"""Recall: the search index of each scope, how a query is cut and ranked, the text recall prints
and its ``Related:`` lines, and the run it records."""
