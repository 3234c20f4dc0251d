"""Which driver an ``--impl`` names: the reference (in this process, behind the protocol, or with
every command a real ``teamai-ref`` process), the published teamai-cli, the perturbed reference,
or any command line that speaks the protocol.

``driver.py`` owns the one interface and its two kinds; the drivers for particular
implementations (``drivers/reference.py``, the rest of ``drivers/``) are built on it, and this choice among
them sits above them all.
"""

from __future__ import annotations

import shlex
import sys

from .running.driver import Driver, DriverUnusable, LocalDriver, ProcessDriver


def connect(impl: str) -> Driver:
    """A driver for ``impl``: ``reference`` (in-process), ``reference-subprocess`` (the protocol to a
    driver process that runs the reference inside it), ``reference-cli`` (the protocol, and every
    command a real ``teamai-ref`` process), ``teamai-cli`` (the published teamai-cli 0.25.0, see
    ``drivers/teamai_cli.py``), ``perturbed`` (the reference with every choice the proposals leave
    open made another way, in-process, ``drivers/perturbed.py``), or a command line."""
    if impl == "reference":
        from .drivers.reference import ReferenceBackend, in_process

        return LocalDriver(lambda: ReferenceBackend(in_process), "reference")
    if impl == "perturbed":
        from .drivers import perturbed

        return perturbed.connect()
    if impl == "reference-subprocess":
        return ProcessDriver([sys.executable, "-m", "conformance", "driver", "reference"], impl)
    if impl == "reference-cli":
        return ProcessDriver([sys.executable, "-m", "conformance", "driver", "reference", "--exec", "cli"], impl)
    if impl == "teamai-cli":
        return ProcessDriver([sys.executable, "-m", "conformance.drivers.teamai_cli"], impl)
    argv = shlex.split(impl)
    if not argv:
        raise DriverUnusable("--impl is empty")
    return ProcessDriver(argv, impl)
