"""Captured sessions of real agents: reading capture files, replaying them through the reference,
and importing them as scenarios."""
