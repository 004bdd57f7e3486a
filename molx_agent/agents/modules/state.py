"""Shared LangGraph state: ``AgentState`` and ``Task`` (see DESIGN.md, "Data flow of one query").

The state is plain JSON (strings, numbers, booleans, lists, dicts) apart from ``messages`` (LangChain messages,
which every LangGraph checkpointer serialises), so any checkpointer (``SqliteSaver``) can store it and a run killed
mid-graph resumes in a new process.  Workers return numpy scalars, paths or dataclasses at their peril:
:func:`to_jsonable` converts every worker result at the worker boundary (``BaseAgent.run``); large artefacts (a
SAR result, report files) are written to files and referenced by path.

``tasks`` and ``results`` are merged per task id and ``errors``, ``plan_history`` and ``reflections`` are appended,
so the independent tasks the graph runs in parallel (LangGraph ``Send``) each write only their own entries.  A node
that rewrites a whole field (a new turn, a new plan) wraps the value in :func:`replace`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict

from langchain_core.messages import BaseMessage
from langgraph.graph.message import add_messages

from molx_agent.io_utils import to_jsonable as _to_jsonable

TaskStatus = Literal["pending", "running", "done", "failed", "skipped"]

#: Worker types built into molx-agent (a ``MolxAgent(workers={...})`` may add custom ones).
WORKER_TYPES: tuple[str, ...] = (
    "data_cleaner",
    "sar",
    "analysis",
    "disconnection",
    "validation",
    "reporter",
    "tool_agent",
)

INTENTS: tuple[str, ...] = (
    "retrosynthesis",
    "sar_analysis",
    "molecule_query",
    "reaction_validation",
    "data_processing",
    "synthesis_of_hits",
    "unsupported",
)

#: Verdicts a worker gives its own result (``result["verdict"]``).
VERDICTS: tuple[str, ...] = ("accept", "weak", "reject")

#: Error classes of a failed attempt (``task["error_class"]``): bad input is never retried, a transient fault is,
#: an internal error (a bug: the same input gives the same crash) is reported.
ERROR_CLASSES: tuple[str, ...] = ("bad_input", "transient", "internal")

_REPLACE = "__replace__"


def to_jsonable(obj: Any) -> Any:
    """Plain JSON types only (``molx_agent.io_utils.to_jsonable`` with ``strict=True``): numpy scalars and arrays,
    paths, enums, dates, sets, dataclasses and pydantic models are converted, NaN and infinities become ``None``;
    anything else raises ``TypeError`` (a worker bug, reported as such) instead of being stored as a string."""
    return _to_jsonable(obj, strict=True)


def replace(value: Any) -> dict[str, Any]:
    """An update that replaces a reduced field (``tasks``, ``results``, ``errors``, ...) instead of merging into it."""
    return {_REPLACE: value}


def _is_replace(update: Any) -> bool:
    return isinstance(update, dict) and len(update) == 1 and _REPLACE in update


def merge_by_id(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
    """Reducer of ``tasks`` and ``results``: entries of ``right`` replace those of ``left`` with the same id."""
    if _is_replace(right):
        return dict(right[_REPLACE] or {})  # type: ignore[index]
    out = dict(left or {})
    out.update(right or {})
    return out


def append_items(left: list[Any] | None, right: list[Any] | dict[str, Any] | None) -> list[Any]:
    """Reducer of ``errors``, ``plan_history`` and ``reflections``: ``right`` is appended."""
    if _is_replace(right):
        return list(right[_REPLACE] or [])  # type: ignore[index]
    return [*(left or []), *(right or [])]


class Task(TypedDict, total=False):
    """One node of the task DAG."""

    id: str
    """Unique task id within the plan (e.g. ``"t1"``)."""
    type: str
    """Worker name, one of :data:`WORKER_TYPES` or a custom worker given to ``MolxAgent(workers=...)``."""
    description: str
    """What the worker should do, in plain words."""
    inputs: dict[str, Any]
    """Worker-specific inputs (SMILES, file paths, ``options``)."""
    depends_on: list[str]
    """Ids of tasks that must be ``done`` before this one runs."""
    status: TaskStatus
    """pending / running / done / failed / skipped."""
    error: str
    """Error message when ``status == "failed"`` (or why it was skipped)."""
    error_class: str
    """``bad_input`` / ``transient`` / ``internal`` for a failed task (see :data:`ERROR_CLASSES`)."""
    unavailable: bool
    """True when the task was skipped because its capability is not built yet (does not block dependants)."""
    dropped: str
    """Why the planner dropped the task (it would add nothing, e.g. the target is sold); status ``skipped``."""
    attempts: list[dict[str, Any]]
    """One record per run of the task: ``n``, ``status``, ``verdict``, ``error_code``, ``error_class``,
    ``summary``/``error`` and the ``options`` it ran with."""


class AgentState(TypedDict, total=False):
    """State shared by every node of the graph (plain JSON apart from ``messages``)."""

    messages: Annotated[list[BaseMessage], add_messages]
    """Conversation messages (user queries and final answers), merged with ``add_messages``."""
    user_query: str
    """The user's current question."""
    input_files: list[str]
    """Data files handed over with the query."""
    options: dict[str, Any]
    """Run options of this turn (``search_time``: the first route search's time limit, in seconds)."""
    language: str
    """``"en"`` or ``"zh"``: the language prose answers are written in."""
    intent: str
    """Classified intent, one of :data:`INTENTS`."""
    intent_confidence: float
    """Classifier confidence, 0-1."""
    intent_reasoning: list[str]
    """Reasoning steps of the classifier."""
    tasks: Annotated[dict[str, Task], merge_by_id]
    """Task DAG: task id -> Task (merged per id; a new plan replaces it)."""
    current_task_id: str | None
    """Last task dispatched (kept for the seed's interface; parallel tasks run together)."""
    results: Annotated[dict[str, dict[str, Any]], merge_by_id]
    """Task id -> JSON result dict written by the worker (``summary``, ``verdict``, ``issues``, ...)."""
    reflection: dict[str, Any]
    """Latest REFLECT: ``success``, ``should_replan``, ``issues`` (``{task_id, code, class, message, ...}``),
    ``actions`` (what OPTIMIZE should change) and ``summary``."""
    reflections: Annotated[list[dict[str, Any]], append_items]
    """Every REFLECT of this turn, in order."""
    plan_history: Annotated[list[dict[str, Any]], append_items]
    """Every plan of this turn: ``round``, ``source``, ``reason``, ``tasks`` (id, type, inputs, depends_on)."""
    iteration: int
    """Number of OPTIMIZE (re-plan) rounds done."""
    final_response: str
    """Final prose answer (alias kept for seed compatibility)."""
    final_answer: str
    """Final prose answer shown to the user."""
    report_paths: list[str]
    """Paths of reports written during the run."""
    errors: Annotated[list[dict[str, Any]], append_items]
    """Errors collected along the way (each a dict with ``code``, ``message``, ...)."""
    context_smiles: list[str]
    """Molecules of the previous turn (chat): used when a follow-up question names no molecule."""
    context_files: list[str]
    """Data files of the previous turn (chat): used when a follow-up SAR question names no file."""
    context_sar: str | None
    """The previous turn's saved SAR result (``sar_result_file``): a follow-up question reuses it, no recompute."""
    plan_feedback: list[str]
    """The chemist's feedback on rejected plans of this turn (``run --confirm``): each re-plan reads all of it."""
    plan_approved: bool | None
    """The chemist's verdict on the plan of this turn (``None``: not asked)."""
    follow_up: bool
    """This turn asks about the previous turn's data (set by the classifier)."""


__all__ = [
    "AgentState",
    "Task",
    "TaskStatus",
    "WORKER_TYPES",
    "INTENTS",
    "VERDICTS",
    "ERROR_CLASSES",
    "replace",
    "merge_by_id",
    "append_items",
    "to_jsonable",
]
