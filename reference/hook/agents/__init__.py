"""One module per agent, each turning that agent's payload into a :class:`~reference.hook.toolcall.ToolCall`.

Every module offers ``parse(payload, event) -> ToolCall``. ``payload`` is a JSON object whose fields
may have any type: a module reads a field only through the readers in ``_fields`` so a wrong type
means "absent", never an exception.
"""

AGENTS = ("claude", "codex", "cursor", "copilot", "codebuddy", "qoder", "workbuddy", "opencode", "pi", "omp")
