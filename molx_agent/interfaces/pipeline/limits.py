"""Resource limits and thresholds of the task pipeline (seed 000, "SA Score 分类阈值 + 资源限制参考").

The SA thresholds are the one copy in :mod:`molx_agent.chem.properties`; ``MAX_DEPTH`` is the search's
``SearchConfig().max_depth`` (7, the seed's value).
"""

from __future__ import annotations

from dataclasses import dataclass

from molx_agent.chem.properties import SA_EASY, SA_PURCHASABLE
from molx_agent.retro.search_types import SearchConfig


@dataclass(frozen=True)
class RetroLimits:
    """Resource limits (``RetroLimits``)."""

    MAX_DEPTH: int = SearchConfig().max_depth  # maximum recursion depth of decomposition (7)
    MW_TERMINAL: float = 120.0  # molecules lighter than this are terminal
    MAX_REPAIR_RETRIES: int = 3  # repair attempts per disconnection
    MAX_EXPLORATION_CALLS: int = 5  # exploration budget per decision point
    MAX_GRAPH_DEPTH: int = 20  # maximum RetroGraph depth
    MAX_TOTAL_TASKS: int = 50  # maximum number of tasks of one route


@dataclass(frozen=True)
class SAThresholds:
    """SA-score classes (``SAThresholds``): purchasable < 2.2 <= easily synthesizable < 3.5 <= complex."""

    PURCHASABLE: float = SA_PURCHASABLE
    EASILY_SYNTHESIZABLE: float = SA_EASY

    def classify(self, sa_score: float) -> str:
        """The SA class with these thresholds (with the defaults: :func:`molx_agent.chem.properties.sa_class`)."""
        if sa_score < self.PURCHASABLE:
            return "purchasable"
        return "easily_synthesizable" if sa_score < self.EASILY_SYNTHESIZABLE else "complex"


LIMITS = RetroLimits()
SA_THRESHOLDS = SAThresholds()

CONFIDENCE_THRESHOLD = 0.3
DEFAULT_MAX_BYPRODUCTS = 3
DEFAULT_MAX_PROPOSALS = 5

__all__ = [
    "RetroLimits",
    "SAThresholds",
    "LIMITS",
    "SA_THRESHOLDS",
    "CONFIDENCE_THRESHOLD",
    "DEFAULT_MAX_BYPRODUCTS",
    "DEFAULT_MAX_PROPOSALS",
]
