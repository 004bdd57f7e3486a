"""molx-agent: an offline medicinal-chemistry copilot.

``MolxAgent`` and ``ChatSession`` are imported lazily so that importing the
package (and the chemistry layers under it) does not pull in LangChain.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

__all__ = ["MolxAgent", "ChatSession", "__version__"]


def __getattr__(name: str) -> Any:
    if name in ("MolxAgent", "ChatSession"):
        from molx_agent.agents import molx

        return getattr(molx, name)
    raise AttributeError(f"module 'molx_agent' has no attribute {name!r}")
