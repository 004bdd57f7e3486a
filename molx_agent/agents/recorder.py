"""SessionRecorder (seed 002): a readable log of a chat session's turns, next to the LangGraph checkpoints.

The checkpointer holds the graph state (to resume); the recorder keeps what a chemist wants to read back -- each
turn's question, intent, plan (task types and statuses), answer and report paths -- as one JSON object per line in
``MOLX_HOME/sessions/<session id>.jsonl`` (rewritten atomically on every turn).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from molx_agent.io_utils import atomic_write_text, to_jsonable


class SessionRecorder:
    """Records the turns of one session (``record``), reads them back (``turns``) and forgets them (``clear``)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    @classmethod
    def for_session(cls, home_dir: str | Path, session_id: str) -> SessionRecorder:
        return cls(Path(home_dir) / "sessions" / f"{session_id}.jsonl")

    def turns(self) -> list[dict[str, Any]]:
        if not self.path.is_file():
            return []
        out = []
        for line in self.path.read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if line:
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:
                    continue  # a damaged line is skipped, the rest of the log stays readable
        return out

    def record(self, query: str, state: dict[str, Any], *, files: list[str] | None = None,
               thread_id: str | None = None) -> dict[str, Any]:
        """Append one turn and return its record."""
        tasks = state.get("tasks") or {}
        record = to_jsonable({
            "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "thread_id": thread_id,
            "query": query,
            "files": list(files or []),
            "intent": state.get("intent"),
            "language": state.get("language"),
            "tasks": [{"id": tid, "type": t.get("type"), "status": t.get("status"),
                       "attempts": len(t.get("attempts") or [])} for tid, t in tasks.items()],
            "iteration": state.get("iteration", 0),
            "answer": state.get("final_answer", ""),
            "report_paths": list(state.get("report_paths") or []),
        })
        lines = [json.dumps(t, ensure_ascii=False) for t in [*self.turns(), record]]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.path, "\n".join(lines) + "\n")
        return record

    def clear(self) -> None:
        if self.path.exists():
            self.path.unlink()


__all__ = ["SessionRecorder"]
