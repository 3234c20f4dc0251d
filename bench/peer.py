"""teamai-cli 0.25.0 as a peer in the benchmarks: installed from npm into a cache folder and set
up headless on the same team tree. The set-up is the conformance driver's own
(``conformance/drivers/teamai_cli_home.py``), so the peer measured here is the one the
conformance report describes."""

from __future__ import annotations

from conformance.drivers.teamai_cli_home import VERSION, cache_dir, install, offline_env, set_up

__all__ = ["VERSION", "cache_dir", "install", "offline_env", "set_up"]
