"""Attach ``Related:`` lines to recall hits (placeholder until the relations package lands)."""

from __future__ import annotations

from .config import Config
from .recall import Hit, Searched


def attach(cfg: Config, searched: Searched) -> list[Hit]:
    return list(searched.hits)
