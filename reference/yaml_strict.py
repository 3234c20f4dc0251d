"""PyYAML's safe loading, with the same answer whether or not PyYAML was built with libyaml.

libyaml refuses a double-quoted escape that names a lone surrogate (``"\\ud800"``); PyYAML's own
Python reader builds the string, which no UTF-8 file, SQLite text or JSON line can hold after. Both
are held to libyaml's answer here, with libyaml's error, so a team tree or a votes ledger reads the
same on every install and its callers handle one kind of failure.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

LONE_SURROGATE = "found invalid Unicode character escape code"  # libyaml's words


def load(yaml: Any, text: str, loader: Any) -> Any:
    data = yaml.load(text, Loader=loader)  # noqa: S506 - callers pass a safe loader
    if "\\" in text and _holds_surrogate(data):  # only an escape can give one: the text is UTF-8
        raise yaml.scanner.ScannerError(problem=LONE_SURROGATE)
    return data


def _holds_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, dict):
        return any(_holds_surrogate(k) or _holds_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_holds_surrogate(v) for v in value)
    return False
