"""Running one case against one driver: the protocol, the driver, the sandbox, time, substitutions,
and judging what the implementation did against the case's expectations.

A run, one way::

    scenarios + payloads -> corpus.read (load) -> corpus.lint (blocking problems stop a run)
        -> pool (worker processes, a driver each) -> applicability (what is judged)
        -> case_runner: open, seed, steps at their instants, observe, close
        -> expect (mismatches per level block) -> outcomes.settle (spec, decisions, profile)
        -> corpus.vacuity -> expectations (xfail, xpass, skip)
        -> an unexpected fail: reports.explain (the case again with traces, the reference's trace)
        -> reports (terminal with explain_text, jsonl, junit; jsonl -> model -> html)
"""
