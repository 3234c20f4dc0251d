"""Mutation testing of the corpus: how many plausible faults of the reference the scenarios catch.

Run it as ``nox -s mutation`` (``python -m conformance.mutation``); :mod:`.run` says how it goes,
:mod:`.operators` which faults it makes, :mod:`.walker` where in a module it makes them,
:mod:`.targets` which modules it mutates, and ``equivalents.toml`` lists the mutants that change
nothing observable, each with its reason.
"""
