"""The pipeline's session directory: every route and its tasks, written atomically.

Layout::

    SESSION_DIR/
      session.json            target, settings, route ids
      routes/route_1.json     RouteState: tasks, pending DecisionContext, history, RetroGraph
      routes/route_2.json
      reports/route_1/        written by finalize (HTML, Markdown, JSON, images)

Every write goes through :func:`molx_agent.io_utils.atomic_write_json` (temp file + fsync +
rename), so a crash never leaves a half-written file.  Mutating commands hold an exclusive
lock on ``SESSION_DIR/.lock`` (POSIX ``flock``; no lock where ``fcntl`` is unavailable).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError as PydanticValidationError

from molx_agent.errors import DataError, ValidationError
from molx_agent.interfaces.pipeline.models import RouteState, now_iso
from molx_agent.io_utils import atomic_write_json

SESSION_FILE = "session.json"
ROUTES_DIR = "routes"
REPORTS_DIR = "reports"
FORMAT = "molx-agent.retro-pipeline"
FORMAT_VERSION = 1
ROUTE_ID_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


class SessionStore:
    """Load and save one pipeline session directory."""

    def __init__(self, session_dir: str | Path) -> None:
        self.dir = Path(session_dir)

    # ------------------------------------------------------------------ files
    @property
    def session_file(self) -> Path:
        return self.dir / SESSION_FILE

    def route_file(self, route_id: str) -> Path:
        return self.dir / ROUTES_DIR / f"{route_id}.json"

    def report_dir(self, route_id: str) -> Path:
        return self.dir / REPORTS_DIR / route_id

    def exists(self) -> bool:
        return self.session_file.is_file()

    # ------------------------------------------------------------------ session
    def create(
        self, target_smiles: str, *, name: str = "", stock: str | None = None, language: str = "en"
    ) -> dict[str, Any]:
        meta = {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "target_smiles": target_smiles,
            "target_name": name,
            "stock": stock,
            "language": language,
            "routes": [],
            "created_at": now_iso(),
            "updated_at": now_iso(),
        }
        self.save_meta(meta)
        return meta

    def load_meta(self) -> dict[str, Any]:
        if not self.dir.is_dir():
            raise DataError(
                "session_not_found",
                f"session directory not found: {self.dir}",
                value=str(self.dir),
                hint="create one with `molx-agent retro plan --target-smiles ... --output-dir DIR`",
            )
        if not self.session_file.is_file():
            raise DataError(
                "session_not_found",
                f"not a pipeline session (no {SESSION_FILE}): {self.dir}",
                value=str(self.dir),
                hint="pass the --output-dir given to `retro plan`",
            )
        try:
            meta = json.loads(self.session_file.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise DataError(
                "corrupt_session",
                f"{self.session_file} is not valid JSON: {exc}",
                value=str(self.session_file),
            ) from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise DataError(
                "corrupt_session",
                f"{self.session_file} is not a molx-agent pipeline session",
                value=str(self.session_file),
            )
        return meta

    def save_meta(self, meta: dict[str, Any]) -> None:
        meta["updated_at"] = now_iso()
        atomic_write_json(self.session_file, meta)

    # ------------------------------------------------------------------ routes
    def next_route_id(self, meta: dict[str, Any]) -> str:
        n = len(meta.get("routes", [])) + 1
        while f"route_{n}" in meta.get("routes", []):
            n += 1
        return f"route_{n}"

    def resolve_route(self, meta: dict[str, Any], route_id: str | None) -> str:
        routes = list(meta.get("routes", []))
        if route_id is None:
            if len(routes) == 1:
                return routes[0]
            raise ValidationError(
                "route_required",
                "this session has several routes: pass --route",
                value=routes,
                hint=f"routes: {', '.join(routes)}",
            )
        if route_id not in routes:
            raise ValidationError(
                "unknown_route",
                f"no route {route_id!r} in {self.dir}",
                value=route_id,
                hint=f"routes: {', '.join(routes) or 'none'}",
            )
        return route_id

    def load_route(self, route_id: str) -> RouteState:
        if not ROUTE_ID_RE.match(route_id):
            raise ValidationError("unknown_route", f"invalid route id {route_id!r}", value=route_id)
        path = self.route_file(route_id)
        if not path.is_file():
            raise DataError("unknown_route", f"route file missing: {path}", value=route_id)
        try:
            return RouteState.model_validate_json(path.read_text(encoding="utf-8"))
        except (PydanticValidationError, UnicodeDecodeError) as exc:
            raise DataError(
                "corrupt_session",
                f"{path} is not a valid route file: {str(exc).splitlines()[0]}",
                value=str(path),
            ) from None

    def save_route(self, route: RouteState) -> Path:
        route.updated_at = now_iso()
        return atomic_write_json(self.route_file(route.route_id), route.model_dump(mode="json"))

    def add_route(self, meta: dict[str, Any], route: RouteState) -> None:
        self.save_route(route)
        meta.setdefault("routes", []).append(route.route_id)
        self.save_meta(meta)

    # ------------------------------------------------------------------ locking
    @contextlib.contextmanager
    def locked(self, *, create: bool = False) -> Iterator[None]:
        """Exclusive lock for a read-modify-write of the session (no-op without fcntl).

        Only ``create=True`` (``plan``) may create the directory; otherwise a missing session is an error.
        """
        if not create and not self.dir.is_dir():
            self.load_meta()  # raises session_not_found
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            yield
            return
        self.dir.mkdir(parents=True, exist_ok=True)
        with open(self.dir / ".lock", "a+") as fh:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


__all__ = ["SessionStore", "SESSION_FILE", "ROUTES_DIR", "REPORTS_DIR", "FORMAT", "FORMAT_VERSION"]
