"""The agents layer: LangGraph orchestration (MolxAgent, ChatSession), classifier, planner, workers.

Imported lazily: ``from molx_agent.agents import MolxAgent`` loads LangGraph only then.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MolxAgent", "ChatSession", "SessionRecorder", "IntentClassifierAgent", "PlannerAgent", "WORKER_CLASSES",
           "BaseAgent", "SARAgent", "SARAgentConfig", "Rule"]

_LAZY = {
    "MolxAgent": "molx_agent.agents.molx",
    "ChatSession": "molx_agent.agents.molx",
    "IntentClassifierAgent": "molx_agent.agents.intent_classifier",
    "PlannerAgent": "molx_agent.agents.planner",
    "WORKER_CLASSES": "molx_agent.agents.workers",
    "SessionRecorder": "molx_agent.agents.recorder",
    "BaseAgent": "molx_agent.agents.base",
    "SARAgent": "molx_agent.agents.sar",
    "SARAgentConfig": "molx_agent.agents.sar",
    "Rule": "molx_agent.agents.sar",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'molx_agent.agents' has no attribute {name!r}")
