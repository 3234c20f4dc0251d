"""One module per agent, each turning that agent's payload into a :class:`~reference.hook.toolcall.ToolCall`.

Every module offers ``parse(payload, event) -> ToolCall``. ``payload`` is a JSON object whose fields
may have any type: a module reads a field only through the readers in ``_fields`` so a wrong type
means "absent", never an exception. A payload's session is the first non-empty of
``session_id``, ``sessionId``, ``conversation_id`` for every agent (``_fields.SESSION_KEYS``).

:data:`AGENTS` is the one list of agents: dispatch, replay, doctor, capture and
``conformance/drivers/reference.py`` (the agents the reference declares) read it.
``conformance/running/case_runner.py`` turns a case the reference's own driver declines for an
agent or a command into an error naming what to add, and ``import-capture`` refuses an agent
without an adapter up front, saying what to write.
"""

AGENTS = ("claude", "codex", "cursor", "copilot", "codebuddy", "qoder", "workbuddy", "opencode", "pi", "omp")
