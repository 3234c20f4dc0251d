"""Two hollow implementations, for judging the corpus rather than an implementation.

A scenario that passes against an implementation which does nothing proves nothing, and a
"never counts" case that passes against hooks which write nothing proves nothing about the hook.
``conformance/corpus/honesty.py`` runs the corpus against these two and lists such cases.

- :class:`DoNothing` declares every capability, answers every step with exit 0 and no output,
  and observes an empty ledger, an empty log and no stats rows. It still writes the scenario's
  files where the sandbox layout puts them and names their paths, as any driver must: that is
  the harness's side of the protocol, not behaviour.
- :class:`HooksOff` is the reference with its hook disabled: recall, pull, stats, review and
  contribute run for real, and every hook call exits 0 having done nothing (not even the reducer
  at Stop), so whatever a case credits to the hook must fail there.

Run either behind the protocol: ``python -m conformance.drivers.hollow do-nothing`` or
``... hooks-off`` (``teamai-conformance run --impl "python -m conformance.drivers.hollow do-nothing"``).
"""

from __future__ import annotations

import sys
from typing import Any

from ..running.driver import Driver, LocalDriver
from .reference import ReferenceBackend, in_process

KINDS = ("do-nothing", "hooks-off")
_NOTHING = {"exit": 0, "stdout": "", "stderr": ""}


class DoNothing(ReferenceBackend):
    """Every capability, no behaviour."""

    def __init__(self) -> None:
        super().__init__(in_process)

    def do_start(self, message: dict[str, Any]) -> dict[str, Any]:
        answer = super().do_start(message)  # the reference's capabilities, which are every one
        answer["implementation"] = {"name": "do-nothing", "version": "0"}
        return answer

    def do_open(self, message: dict[str, Any]) -> dict[str, Any]:
        # No git repository: nothing here would ever read it.
        return super().do_open({**message, "repo": None})

    def do_recall(self, message: dict[str, Any]) -> dict[str, Any]:
        return dict(_NOTHING)

    def do_hook(self, message: dict[str, Any]) -> dict[str, Any]:
        return dict(_NOTHING)

    def do_pull(self, message: dict[str, Any]) -> dict[str, Any]:
        return dict(_NOTHING)

    def do_stats(self, message: dict[str, Any]) -> dict[str, Any]:
        return dict(_NOTHING)

    def do_review(self, message: dict[str, Any]) -> dict[str, Any]:
        return dict(_NOTHING)

    def do_contribute(self, message: dict[str, Any]) -> dict[str, Any]:
        return dict(_NOTHING)

    def do_seed(self, message: dict[str, Any]) -> dict[str, Any]:
        return {}

    def do_hold(self, message: dict[str, Any]) -> dict[str, Any]:
        return {}

    def do_release(self, message: dict[str, Any]) -> dict[str, Any]:
        return {}

    def do_spoil(self, message: dict[str, Any]) -> dict[str, Any]:
        return {}

    def do_observe(self, message: dict[str, Any]) -> dict[str, Any]:
        asked = "credited" in (message.get("want") or ())
        return {"votes": {}, "log": [], "stats": [], "raw": {}, "ledger": None, **({"credited": []} if asked else {})}


class HooksOff(ReferenceBackend):
    """The reference with a hook that records nothing and never reduces."""

    def __init__(self) -> None:
        super().__init__(in_process)

    def do_start(self, message: dict[str, Any]) -> dict[str, Any]:
        answer = super().do_start(message)
        answer["implementation"] = {"name": "reference with its hook off", "version": "0"}
        return answer

    def do_hook(self, message: dict[str, Any]) -> dict[str, Any]:
        return dict(_NOTHING)


def backend(kind: str) -> ReferenceBackend:
    if kind == "do-nothing":
        return DoNothing()
    if kind == "hooks-off":
        return HooksOff()
    raise ValueError(f"no hollow implementation {kind!r} (known: {', '.join(KINDS)})")


def connect(kind: str) -> Driver:
    """The hollow implementation ``kind`` as an in-process driver."""
    backend(kind)  # an unknown kind fails here, not inside the handshake
    return LocalDriver(lambda: backend(kind), kind)


def main(argv: list[str]) -> int:
    from ..server import serve

    if len(argv) != 1 or argv[0] not in KINDS:
        sys.stderr.write(f"usage: python -m conformance.drivers.hollow {{{','.join(KINDS)}}}\n")
        return 2
    return serve(backend(argv[0]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
