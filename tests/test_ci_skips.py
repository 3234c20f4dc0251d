"""A test that skips for want of something CI installs fails in CI instead of skipping unnoticed."""

from __future__ import annotations

import pytest

from tests.conftest import in_ci, skip_unless_in_ci


@pytest.mark.parametrize(("value", "ci"), [("true", True), ("1", True), ("yes", True), ("", False), ("0", False),
                                           ("false", False), ("False", False)])
def test_what_counts_as_ci(value, ci):
    assert in_ci({"CI": value}) is ci
    assert in_ci({}) is False


def test_outside_ci_it_skips_and_says_why(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="needs a browser"):
        skip_unless_in_ci("needs a browser")


def test_in_ci_it_fails(monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI must run this test, but: needs a browser"):
        skip_unless_in_ci("needs a browser")


def test_ci_shows_the_browser_install_and_lists_skips():
    from tests.conftest import ROOT

    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    install = next(line for line in script.splitlines() if "apt-get install" in line)
    assert "/dev/null" not in install
    assert "-ra" in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
