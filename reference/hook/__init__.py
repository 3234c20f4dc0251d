"""The hook side of recall attribution: what an agent's tool-call hook tells us, turned into claim,
evidence and link lines of the recall log. One rule, one module:

- ``dispatch``: the entry (event spellings, the stdin cap, exit 0 always, the debug log, the
  reducer at Stop), and saved payloads (``--payload-file``);
- ``fast``: the quickest way in, and what the hot path may import; ``command``: the printed line;
- ``agents/<agent>``: a payload turned into a ``toolcall.ToolCall`` (shared readers in
  ``agents/_fields``, the bridge shape in ``agents/_bridge``);
- ``categories``: a tool name's category; ``shell_syntax``: a shell line's words, commands and
  pipelines; ``shell``: what those commands did (verbs, wrappers, the dialect);
- ``search``: when a search showed a doc's text; ``claims``: run ids, and whether a line invokes
  recall; ``classify``: the status rule and the lines written (``../pathmatch.py`` spells paths);
- ``replay``: the same decisions in words, writing nothing (``commands/doctor.py`` checks a hook
  line, off every hook's import path).
"""
