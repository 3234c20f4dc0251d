"""teamai-ref: a small, exact reference implementation of TeamAI recall attribution (#884)
and asset relations (#1552, first slice).

The public surface is the ``teamai-ref`` command (:mod:`reference.cli`). Everything else is
internal; ``ARCHITECTURE.md`` names which module owns which rule.
"""

__version__ = "0.1.0"
