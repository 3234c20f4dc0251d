"""Comparing two implementations rather than judging one: observations after every step, where
they part, ``diff``, ``shrink``, and candidate scenarios from a disagreement."""
