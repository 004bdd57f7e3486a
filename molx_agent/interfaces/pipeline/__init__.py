"""The pause/resume task pipeline of seed 000 (plan -> run -> decide ... -> finalize).

``service`` has the commands, ``orchestrator`` runs one route, ``decisions`` holds the 5
decision points, ``exploration`` the 6 read-only tools, ``session_store`` the atomic session
directory, ``models`` the value types and ``limits`` the constants.  Every task is a skill call on the
route's :class:`~molx_agent.retro.engine.RetroEngine` (``engine=`` of the service commands and the
``Orchestrator``; default: the process-wide engine), bound to the session's stock.
"""

from molx_agent.interfaces.pipeline.limits import (
    CONFIDENCE_THRESHOLD,
    DEFAULT_MAX_BYPRODUCTS,
    DEFAULT_MAX_PROPOSALS,
    LIMITS,
    SA_THRESHOLDS,
    RetroLimits,
    SAThresholds,
)
from molx_agent.interfaces.pipeline.models import (
    DecisionContext,
    DecisionInstruction,
    DecisionType,
    PipelineTask,
    RouteState,
    RouteStatus,
    TaskStatus,
    TaskType,
)

__all__ = [
    "RetroLimits",
    "SAThresholds",
    "LIMITS",
    "SA_THRESHOLDS",
    "CONFIDENCE_THRESHOLD",
    "DEFAULT_MAX_BYPRODUCTS",
    "DEFAULT_MAX_PROPOSALS",
    "DecisionContext",
    "DecisionInstruction",
    "DecisionType",
    "PipelineTask",
    "RouteState",
    "RouteStatus",
    "TaskStatus",
    "TaskType",
]
