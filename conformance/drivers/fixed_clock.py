"""A Node preload that pins the clock, for implementations that read no clock variable.

teamai-cli takes every instant from ``Date``. Loaded with ``NODE_OPTIONS=--import <file>``, the
module below replaces ``Date`` so that ``Date.now()`` and ``new Date()`` give the instant in
``FIXED_CLOCK_NOW`` (ISO 8601); every other use of ``Date`` behaves as before, and objects made
by Node itself (file times) still pass ``instanceof Date``. Without the variable it does nothing,
so detached children inherit the instant of the step that spawned them.
"""

from __future__ import annotations

import os

VARIABLE = "FIXED_CLOCK_NOW"

SOURCE = """\
const fixed = Date.parse(process.env.FIXED_CLOCK_NOW ?? "");
if (!Number.isNaN(fixed)) {
  const RealDate = Date;
  class FixedDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(fixed);
      else super(...args);
    }
    static now() { return fixed; }
    static [Symbol.hasInstance](value) { return value instanceof RealDate; }
  }
  globalThis.Date = FixedDate;
}
"""


def write(folder: str) -> str:
    """The preload file in ``folder`` (written once, atomically); returns its path."""
    path = os.path.join(folder, "fixed-clock.mjs")
    try:
        with open(path, encoding="utf-8") as fh:
            if fh.read() == SOURCE:
                return path
    except OSError:
        pass
    os.makedirs(folder, exist_ok=True)
    temp = f"{path}.{os.getpid()}.tmp"
    with open(temp, "w", encoding="utf-8") as fh:
        fh.write(SOURCE)
    os.replace(temp, path)
    return path


def node_options(path: str, inherited: str = "") -> str:
    """``NODE_OPTIONS`` that load the preload, keeping options the caller already had."""
    return " ".join(part for part in (f'--import "{path}"', inherited) if part)
