"""The session file: its structure (seed 001 section 4), loading with checks, atomic saving.

A session file is one JSON document::

    {"format": "molx-agent/retro-session", "format_version": 1,
     "session_id", "created_at", "updated_at",
     "target": {"smiles", "name", "cs_score"},
     "config": {"max_depth", "max_steps", "terminal_cs_threshold", "stock", "language", "top_k"},
     "status": {"status", "steps_executed", "pending_count", "summary"},
     "current": {"smiles", "node_id", "depth", "sandbox": {"attempts", "selected", "n_attempts"}} | null,
     "queue": [["SMILES", depth], ...],
     "seen_smiles": [...],
     "tree": RetroGraph.to_dict()  (molecule_nodes, reaction_nodes, ...),
     "audit_state": SynthesisAuditState.to_dict()}

Anything that is not such a document (bad JSON, another program's JSON, a damaged tree) is
refused with a clear error and never overwritten by a command.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from molx_agent.errors import DataError, ValidationError
from molx_agent.interfaces.session.schema import check_session_document
from molx_agent.io_utils import atomic_write_text, dumps
from molx_agent.retro.route import RetroGraph, SynthesisAuditState
from molx_agent.retro.search_types import SearchConfig

SESSION_FORMAT = "molx-agent/retro-session"
SESSION_FORMAT_VERSION = 1

DEFAULT_CONFIG: dict[str, Any] = {
    "max_depth": 15,
    "max_steps": 50,
    "terminal_cs_threshold": 2.5,
    "stock": "default",
    "language": "",  # "" = decide from the text the user wrote (name, reasoning)
    "top_k": SearchConfig().expansion_top_k,  # single-step proposals per molecule: the search's default
}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def empty_sandbox() -> dict[str, Any]:
    return {"attempts": [], "selected": None, "n_attempts": 0}


@dataclass
class SessionState:
    """Everything a session needs to continue exactly where it stopped."""

    session_id: str
    target: dict[str, Any]
    config: dict[str, Any]
    graph: RetroGraph
    audit: SynthesisAuditState
    status: dict[str, Any] = field(default_factory=lambda: {"status": "in_progress", "steps_executed": 0,
                                                             "pending_count": 0, "summary": ""})
    current: dict[str, Any] | None = None
    queue: list[list[Any]] = field(default_factory=list)  # [[smiles, depth], ...]
    seen_smiles: list[str] = field(default_factory=list)
    created_at: str = field(default_factory=_now)
    updated_at: str = field(default_factory=_now)

    # -- construction ------------------------------------------------------------------------
    @classmethod
    def new(cls, target_smiles: str, name: str, config: dict[str, Any]) -> SessionState:
        graph = RetroGraph.new(target_smiles, name)
        return cls(session_id=uuid.uuid4().hex[:12], target={"smiles": target_smiles, "name": name,
                                                               "cs_score": None},
                   config={**DEFAULT_CONFIG, **config}, graph=graph, audit=SynthesisAuditState(),
                   queue=[[target_smiles, 0]], seen_smiles=[target_smiles])

    # -- helpers -----------------------------------------------------------------------------
    def node_by_smiles(self, smiles: str) -> str | None:
        for node in self.graph.molecule_nodes.values():
            if node.smiles == smiles:
                return node.node_id
        return None

    def refresh_status(self) -> None:
        self.status["steps_executed"] = self.graph.n_steps
        self.status["pending_count"] = len(self.queue) + (1 if self.current else 0)
        self.status["tree_complete"] = self.graph.is_complete()

    # -- (de)serialisation ------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        self.refresh_status()
        return {
            "format": SESSION_FORMAT,
            "format_version": SESSION_FORMAT_VERSION,
            "session_id": self.session_id,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "target": dict(self.target),
            "config": dict(self.config),
            "status": dict(self.status),
            "current": self.current,
            "queue": [list(q) for q in self.queue],
            "seen_smiles": list(self.seen_smiles),
            "tree": self.graph.to_dict(),
            "audit_state": self.audit.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Any, source: str = "") -> SessionState:
        if not isinstance(data, dict) or data.get("format") != SESSION_FORMAT:
            raise ValidationError("foreign_session_file",
                                  f"{source or 'the file'} is not a molx-agent retrosynthesis session",
                                  value=source or None,
                                  hint="pass a file written by `session init`, or init a new session")
        version = data.get("format_version")
        if version != SESSION_FORMAT_VERSION:
            raise ValidationError("unsupported_session_version",
                                  f"session format version {version!r} is not supported "
                                  f"(this molx-agent reads version {SESSION_FORMAT_VERSION})", value=version)
        config = {**DEFAULT_CONFIG, **data["config"]} if isinstance(data.get("config"), dict) else {}
        check_session_document(data, config, source)
        try:
            graph = RetroGraph.from_dict(data["tree"])
            state = cls(
                session_id=str(data["session_id"]),
                target=dict(data["target"]),
                config=config,
                graph=graph,
                audit=SynthesisAuditState.from_dict(data.get("audit_state")),
                status=dict(data["status"]),
                current=data.get("current"),
                queue=[[str(q[0]), int(q[1])] for q in data.get("queue", [])],
                seen_smiles=[str(s) for s in data.get("seen_smiles", [])],
                created_at=str(data.get("created_at", "")),
                updated_at=str(data.get("updated_at", "")),
            )
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise ValidationError("corrupted_session_file",
                                  f"{source or 'the session file'} is damaged ({type(exc).__name__}: {exc})",
                                  value=source or None, hint="restore it from an export's session.json") from exc
        if graph.target_id not in graph.molecule_nodes or not graph.molecule_nodes:
            raise ValidationError("corrupted_session_file", f"{source or 'the session'} has no target node",
                                  value=source or None)
        for rxn in graph.reaction_nodes:
            missing = [n for n in [rxn.product_node, *rxn.reactant_nodes] if n not in graph.molecule_nodes]
            if missing:
                raise ValidationError("corrupted_session_file",
                                      f"{source or 'the session'}: step {rxn.step_id} refers to unknown "
                                      f"molecule node(s) {', '.join(missing)}", value=source or None)
        if state.current is not None and (not isinstance(state.current, dict)
                                          or state.current.get("node_id") not in graph.molecule_nodes):
            raise ValidationError("corrupted_session_file",
                                  f"{source or 'the session'}: the current molecule is not in the tree",
                                  value=source or None)
        return state


def load_session(path: str | Path) -> SessionState:
    """Read and check a session file (clear errors for a missing, corrupted or foreign file)."""
    path = Path(path)
    if not path.exists():
        raise DataError("session_not_found", f"session file not found: {path}", value=str(path),
                        hint="start one with the `init` command")
    if path.is_dir():
        raise DataError("session_not_a_file", f"session path is a directory: {path}", value=str(path))
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValidationError("corrupted_session_file", f"session file {path} is not UTF-8 text",
                              value=str(path)) from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValidationError("corrupted_session_file",
                              f"session file {path} is not valid JSON ({exc.msg} at line {exc.lineno})",
                              value=str(path), hint="restore it from an export's session.json") from exc
    return SessionState.from_dict(data, source=str(path))


def save_session(state: SessionState, path: str | Path) -> Path:
    """Write the session atomically (temp file + fsync + rename)."""
    state.updated_at = _now()
    return atomic_write_text(path, dumps(state.to_dict()) + "\n")


__all__ = ["SessionState", "load_session", "save_session", "empty_sandbox", "DEFAULT_CONFIG", "SESSION_FORMAT",
           "SESSION_FORMAT_VERSION"]
