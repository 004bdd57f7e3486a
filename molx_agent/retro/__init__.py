"""Retrosynthesis engine: RetroEngine, single-step models, stock, judgements, search, route model, export, report.

The protocols (skills, pipeline, session) live in :mod:`molx_agent.interfaces`; the old paths still work.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:  # lazy exports keep `import molx_agent.retro` light
    if name == "RetroCmd":
        from molx_agent.interfaces.session import RetroCmd

        return RetroCmd
    if name in ("Prediction", "SingleStepModel", "load_single_step_model"):
        from molx_agent.retro import single_step

        return getattr(single_step, name)
    raise AttributeError(f"module 'molx_agent.retro' has no attribute {name!r}")
