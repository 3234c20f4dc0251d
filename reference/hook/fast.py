"""The quickest way into the hook, for agents' hook settings.

A hook runs on every tool call of every agent, so its start-up is most of its cost. Run as
``python -I -S <this file> post-tool-use --tool claude``: ``-S`` skips the interpreter's site
set-up and ``-I`` ignores the environment's Python variables; the folder this package is
installed in is put on the path by hand instead. ``teamai-ref hook-command`` prints the exact
line for the current installation.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from reference.hook.dispatch import main  # noqa: E402

sys.exit(main(sys.argv[1:], os.environ, sys.stdin.buffer, sys.stderr))
