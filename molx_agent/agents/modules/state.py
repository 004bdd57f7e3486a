"""Shared LangGraph state: ``AgentState`` and ``Task`` (see DESIGN.md, "Data flow of one query")."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict

from langchain_core.messages import BaseMessage
from langgraph.graph.message import add_messages

TaskStatus = Literal["pending", "running", "done", "failed", "skipped"]

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


class Task(TypedDict, total=False):
    """One node of the task DAG."""

    id: str
    """Unique task id within the plan (e.g. ``"t1"``)."""
    type: str
    """Worker name, one of :data:`WORKER_TYPES`."""
    description: str
    """What the worker should do, in plain words."""
    inputs: dict[str, Any]
    """Worker-specific inputs (SMILES, file paths, options)."""
    depends_on: list[str]
    """Ids of tasks that must be ``done`` before this one runs."""
    status: TaskStatus
    """pending / running / done / failed / skipped."""
    error: str
    """Error message when ``status == "failed"``."""
    unavailable: bool
    """True when the task was skipped because its capability is not built yet (does not block dependants)."""


class AgentState(TypedDict, total=False):
    """State shared by every node of the graph."""

    messages: Annotated[list[BaseMessage], add_messages]
    """Conversation messages (user queries and final answers), merged with ``add_messages``."""
    user_query: str
    """The user's current question."""
    input_files: list[str]
    """Data files handed over with the query."""
    language: str
    """``"en"`` or ``"zh"``: the language prose answers are written in."""
    intent: str
    """Classified intent, one of :data:`INTENTS`."""
    intent_confidence: float
    """Classifier confidence, 0-1."""
    intent_reasoning: list[str]
    """Reasoning steps of the classifier."""
    tasks: dict[str, Task]
    """Task DAG: task id -> Task."""
    current_task_id: str | None
    """Task being executed (or just executed)."""
    results: dict[str, dict[str, Any]]
    """Task id -> JSON-able result dict written by the worker."""
    reflection: dict[str, Any]
    """Output of REFLECT: ``success``, ``should_replan``, ``issues``, ``summary``."""
    iteration: int
    """Number of OPTIMIZE (re-plan) rounds done."""
    final_response: str
    """Final prose answer (alias kept for seed compatibility)."""
    final_answer: str
    """Final prose answer shown to the user."""
    report_paths: list[str]
    """Paths of reports written during the run."""
    errors: list[dict[str, Any]]
    """Errors collected along the way (each a dict with ``code``, ``message``, ...)."""
    context_smiles: list[str]
    """Molecules of the previous turn (chat): used when a follow-up question names no molecule."""
