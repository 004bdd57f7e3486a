"""Sessions and their files for the web server.

A session is a LangGraph thread on the same checkpointer as ``molx-agent chat`` (``MOLX_HOME/chat.sqlite``, or a
Postgres database given by URL), plus a folder ``MOLX_HOME/sessions/<id>/``:

- ``session.json``: name, creation and last-use times;
- ``files/uploads/``: the chemist's data files (CSV, TSV, XLSX, SDF, SMI), names sanitised;
- ``files/reports/<run folder>/``: copies of each turn's reports (route and SAR HTML, ``routes.json``/``tree.json``,
  cleaned data, ...), so a session's files are all under its folder and deleting the session deletes them.

Every path a client names is resolved inside the session's ``files/`` folder; anything that leaves it (``..``,
absolute paths, symlinks) is refused, so one session never reads another's files.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import threading
import time
import unicodedata
from pathlib import Path
from typing import Any

from molx_agent.errors import ConfigError, DataError, ValidationError
from molx_agent.io_utils import atomic_write_bytes, atomic_write_json

#: Session ids the server accepts (what ``new_thread_id`` makes, and the names chemists give ``chat --session``).
SESSION_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
#: Upload types: the data files the SAR readers accept.
UPLOAD_SUFFIXES = (".csv", ".tsv", ".tab", ".txt", ".smi", ".xlsx", ".xlsm", ".sdf", ".sd")
#: Report files copied into a session (anything else a run writes, e.g. pickles, stays in the output folder).
REPORT_SUFFIXES = (".html", ".md", ".json", ".csv", ".tsv", ".txt", ".svg", ".png", ".xlsx", ".sdf", ".smi")
MAX_REPORT_FILE_MB = 50.0
MEDIA_TYPES = {
    ".html": "text/html; charset=utf-8", ".md": "text/markdown; charset=utf-8", ".json": "application/json",
    ".csv": "text/csv; charset=utf-8", ".tsv": "text/tab-separated-values; charset=utf-8",
    ".tab": "text/tab-separated-values; charset=utf-8", ".txt": "text/plain; charset=utf-8",
    ".smi": "text/plain; charset=utf-8", ".sdf": "chemical/x-mdl-sdfile", ".sd": "chemical/x-mdl-sdfile",
    ".svg": "image/svg+xml", ".png": "image/png",
    ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ".xlsm": "application/vnd.ms-excel.sheet.macroEnabled.12",
}


def check_session_id(session_id: Any) -> str:
    """``session_id`` when it is a safe id, else ``ValidationError("invalid_session_id")``."""
    if not isinstance(session_id, str) or not SESSION_ID_RE.match(session_id) or ".." in session_id:
        raise ValidationError("invalid_session_id", f"invalid session id {str(session_id)[:80]!r}",
                              value=str(session_id)[:80],
                              hint="letters, digits, '-', '_' and '.', at most 64 characters")
    return session_id


def sanitize_filename(name: Any) -> str:
    """A safe file name from a client's ``name``: the last path component, NFC, only letters, digits and ``._-``
    (others become ``_``), no leading dot, at most 120 characters; ``ValidationError("invalid_filename")`` when
    nothing usable is left."""
    raw = unicodedata.normalize("NFC", str(name or ""))
    base = re.split(r"[\\/]", raw)[-1].strip()
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in base)
    safe = re.sub(r"_+", "_", safe).lstrip(".").strip()
    stem, dot, suffix = safe.rpartition(".")
    if dot and len(safe) > 120:
        safe = stem[: 119 - len(suffix)] + "." + suffix
    safe = safe[:120]
    if not safe or safe in (".", "..") or not stem.strip("._-") and dot:
        raise ValidationError("invalid_filename", f"unusable file name {str(name)[:80]!r}", value=str(name)[:80])
    return safe


def open_checkpointer(url: str | None, home_dir: Path) -> tuple[Any, Any]:
    """``(saver, closer)``: a SQLite saver on ``MOLX_HOME/chat.sqlite`` (``url`` None, ``""`` or ``sqlite:///PATH``)
    or a Postgres saver (``postgresql://...``, needs the ``postgres`` extra). ``ConfigError`` when impossible."""
    from molx_agent.agents.molx import open_sqlite_saver

    if not url:
        saver, conn = open_sqlite_saver(home_dir / "chat.sqlite")
        return saver, conn
    if url.startswith("sqlite:///"):
        saver, conn = open_sqlite_saver(Path(url[len("sqlite:///"):]).expanduser())
        return saver, conn
    if url.startswith(("postgres://", "postgresql://")):
        try:
            import psycopg
            from langgraph.checkpoint.postgres import PostgresSaver
            from psycopg.rows import dict_row
        except ImportError:
            raise ConfigError("postgres_unavailable", "a Postgres checkpointer needs the langgraph-checkpoint-postgres "
                              "and psycopg packages", hint="install the extra: pip install 'molx-agent[postgres]'",
                              ) from None
        try:
            conn = psycopg.connect(url, autocommit=True, prepare_threshold=0, row_factory=dict_row, connect_timeout=10)
        except Exception as exc:  # noqa: BLE001 - any driver error is a configuration problem here
            raise ConfigError("checkpointer_unavailable", f"cannot connect to the Postgres checkpointer: "
                              f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}",
                              hint="check the connection URL (--checkpointer / MOLX_CHECKPOINTER_URL)") from None
        saver = PostgresSaver(conn)
        saver.setup()
        return saver, conn
    raise ConfigError("invalid_checkpointer_url", f"unsupported checkpointer URL {url.split(':', 1)[0]!r}",
                      hint="use sqlite:///PATH or postgresql://USER:PASSWORD@HOST/DB")


class SessionStore:
    """Session metadata and files under ``home_dir/sessions``, threads on ``checkpointer``."""

    def __init__(self, home_dir: Path, checkpointer: Any, *, max_upload_bytes: int, sqlite_path: Path | None = None):
        self.home_dir = Path(home_dir)
        self.root = self.home_dir / "sessions"
        self.checkpointer = checkpointer
        self.max_upload_bytes = max_upload_bytes
        self.sqlite_path = sqlite_path
        self._lock = threading.RLock()

    # -- sessions ------------------------------------------------------------------------------------
    def folder(self, session_id: str) -> Path:
        return self.root / check_session_id(session_id)

    def files_dir(self, session_id: str) -> Path:
        return self.folder(session_id) / "files"

    def _meta_path(self, session_id: str) -> Path:
        return self.folder(session_id) / "session.json"

    def has_thread(self, session_id: str) -> bool:
        return self.checkpointer.get_tuple({"configurable": {"thread_id": session_id}}) is not None

    def exists(self, session_id: str) -> bool:
        check_session_id(session_id)
        return self._meta_path(session_id).is_file() or self.has_thread(session_id)

    def create(self, session_id: str | None = None, name: str | None = None) -> dict[str, Any]:
        from molx_agent.agents.molx import new_thread_id

        with self._lock:
            sid = check_session_id(session_id) if session_id else new_thread_id()
            if self.exists(sid):
                raise ValidationError("session_exists", f"session {sid!r} already exists", value=sid)
            now = time.time()
            meta = {"id": sid, "name": (str(name)[:200] if name else ""), "created": now, "updated": now}
            atomic_write_json(self._meta_path(sid), meta)
            (self.files_dir(sid) / "uploads").mkdir(parents=True, exist_ok=True)
            return meta

    def ensure(self, session_id: str) -> dict[str, Any]:
        """The metadata of ``session_id``, creating its folder when the thread exists without one (a ``chat``
        session); ``ValidationError("session_not_found")`` when neither exists."""
        meta = self.meta(session_id)
        if meta is None:
            raise ValidationError("session_not_found", f"no session {session_id!r}", value=session_id)
        return meta

    def meta(self, session_id: str) -> dict[str, Any] | None:
        """The session's metadata; a thread stored by ``molx-agent chat`` (no folder yet) gets metadata from its
        latest checkpoint, without writing anything (reading never changes a session)."""
        check_session_id(session_id)
        path = self._meta_path(session_id)
        if path.is_file():
            try:
                return json.loads(path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                pass
        tup = self.checkpointer.get_tuple({"configurable": {"thread_id": session_id}})
        if tup is None:
            return None
        ts = _timestamp((tup.checkpoint or {}).get("ts"))
        return {"id": session_id, "name": "", "created": ts, "updated": ts}

    def touch(self, session_id: str, **changes: Any) -> None:
        with self._lock:
            meta = self.meta(session_id) or {"id": session_id, "name": "", "created": time.time()}
            meta.update(changes)
            meta["updated"] = time.time()
            atomic_write_json(self._meta_path(session_id), meta)

    def list(self) -> list[dict[str, Any]]:
        """Every session (those created here and those ``molx-agent chat`` stored), newest first."""
        ids: set[str] = set()
        if self.root.is_dir():
            ids.update(p.name for p in self.root.iterdir() if (p / "session.json").is_file())
        ids.update(self._thread_ids())
        out = []
        for sid in ids:
            if not SESSION_ID_RE.match(sid):
                continue
            meta = self.meta(sid)
            if meta is not None:
                out.append(meta)
        return sorted(out, key=lambda m: m.get("updated") or 0, reverse=True)

    def _thread_ids(self) -> list[str]:
        if self.sqlite_path is not None:
            if not self.sqlite_path.exists():
                return []
            with sqlite3.connect(str(self.sqlite_path)) as conn:
                try:
                    return [r[0] for r in conn.execute("SELECT DISTINCT thread_id FROM checkpoints").fetchall()]
                except sqlite3.OperationalError:
                    return []
        seen: dict[str, None] = {}
        for i, tup in enumerate(self.checkpointer.list(None)):
            seen.setdefault(str(tup.config["configurable"]["thread_id"]), None)
            if i > 100_000:  # bounded
                break
        return list(seen)

    def delete(self, session_id: str) -> None:
        from molx_agent.agents.recorder import SessionRecorder

        self.ensure(session_id)
        with self._lock:
            self.checkpointer.delete_thread(session_id)
            SessionRecorder.for_session(self.home_dir, session_id).clear()
            folder = self.folder(session_id)
            if folder.is_dir():
                shutil.rmtree(folder)

    # -- files ---------------------------------------------------------------------------------------
    def resolve(self, session_id: str, relpath: str) -> Path:
        """The file ``relpath`` of the session (e.g. ``uploads/series.csv``), or ``ValidationError``:
        ``invalid_path`` when it leaves the session's folder, ``file_not_found`` when it is not there."""
        root = self.files_dir(session_id)
        rel = str(relpath or "").replace("\\", "/")
        parts = [p for p in rel.split("/") if p not in ("", ".")]
        if not parts or rel.startswith("/") or any(p == ".." or "\x00" in p for p in parts):
            raise ValidationError("invalid_path", f"invalid file path {rel[:120]!r}", value=rel[:120])
        path = root.joinpath(*parts)
        try:
            real = path.resolve(strict=False)
            inside = real.is_relative_to(root.resolve())
        except (OSError, RuntimeError):
            inside = False
        if not inside or any(p.is_symlink() for p in [path, *path.parents] if p != root and root in p.parents):
            raise ValidationError("invalid_path", f"invalid file path {rel[:120]!r}", value=rel[:120])
        if not path.is_file():
            raise DataError("file_not_found", f"no file {rel[:120]!r} in session {session_id!r}", value=rel[:120])
        return path

    def input_file(self, session_id: str, name: str) -> Path:
        """A file the chemist uploaded (``series.csv`` or ``uploads/series.csv``), as an absolute path."""
        rel = str(name)
        if not rel.replace("\\", "/").startswith(("uploads/", "reports/")):
            rel = "uploads/" + rel
        return self.resolve(session_id, rel)

    def save_upload(self, session_id: str, filename: str, data: bytes) -> dict[str, Any]:
        """Store an upload atomically: a supported type, within the size limit, content matching the type."""
        from molx_agent.sar.io import check_data_file_content

        self.ensure(session_id)
        name = sanitize_filename(filename)
        suffix = Path(name).suffix.lower()
        if suffix not in UPLOAD_SUFFIXES:
            raise DataError("unsupported_file", f"unsupported file type {suffix or '(none)'!r}: {name}", value=name,
                            hint=f"upload one of {', '.join(UPLOAD_SUFFIXES)}")
        if len(data) > self.max_upload_bytes:
            raise DataError("file_too_large", f"{name} is {len(data) / 1e6:.1f} MB; the limit is "
                            f"{self.max_upload_bytes / 1e6:.1f} MB", value=name)
        if not data:
            raise DataError("empty_file", f"{name} is empty", value=name)
        dest = self.files_dir(session_id) / "uploads" / name
        tmp = self.files_dir(session_id) / ".incoming" / name
        atomic_write_bytes(tmp, data)
        try:
            check_data_file_content(tmp)
        except DataError as exc:
            tmp.unlink(missing_ok=True)
            raise DataError(exc.code, exc.message.replace(str(tmp), name), value=name, hint=exc.hint) from None
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp.replace(dest)
        self.touch(session_id)
        return self.file_record(session_id, dest)

    def file_record(self, session_id: str, path: Path) -> dict[str, Any]:
        rel = path.relative_to(self.files_dir(session_id)).as_posix()
        st = path.stat()
        kind = rel.split("/", 1)[0]
        return {"path": rel, "name": path.name, "kind": "upload" if kind == "uploads" else "report",
                "size": st.st_size, "modified": st.st_mtime, "media_type": media_type(path)}

    def list_files(self, session_id: str) -> list[dict[str, Any]]:
        self.ensure(session_id)
        root = self.files_dir(session_id)
        out = []
        for sub in ("uploads", "reports"):
            base = root / sub
            if base.is_dir():
                for p in sorted(base.rglob("*")):
                    if p.is_file() and not p.is_symlink() and not p.name.startswith("."):
                        out.append(self.file_record(session_id, p))
        return out

    def collect_reports(self, session_id: str, report_paths: list[str],
                        output_root: str | Path | None = None) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """Copy the run folders of a turn's reports into ``files/reports/<run folder>/`` (report types only,
        size-limited).  The run folder is the report's top folder under ``output_root`` (so a run's several targets
        stay together), else the report's own folder.  Returns the copied files' records and ``{source folder:
        session path}`` (to show the chemist session paths instead of server paths)."""
        root = Path(output_root).expanduser().resolve() if output_root else None
        folders: dict[Path, set[str]] = {}
        for p in report_paths or []:
            path = Path(str(p))
            if not path.is_file():
                continue
            folder, given = path.parent.resolve(), path.parent
            if root is not None and folder.is_relative_to(root) and folder != root:
                depth = len(folder.relative_to(root).parts)
                folder = root / folder.relative_to(root).parts[0]
                given = given if depth == 1 else given.parents[depth - 2]
            folders.setdefault(folder, set()).update({str(folder), str(given)})
        copied: list[dict[str, Any]] = []
        mapping: dict[str, str] = {}
        dest_root = self.files_dir(session_id) / "reports"
        for folder, names in folders.items():
            name = sanitize_filename(folder.name)
            dest = dest_root / name
            mapping.update({n: f"reports/{name}" for n in names})
            for src in sorted(folder.rglob("*")):
                if (not src.is_file() or src.is_symlink() or src.suffix.lower() not in REPORT_SUFFIXES
                        or src.stat().st_size > MAX_REPORT_FILE_MB * 1e6):
                    continue
                target = dest / src.relative_to(folder)
                atomic_write_bytes(target, src.read_bytes())
                copied.append(self.file_record(session_id, target))
        return copied, mapping


def _timestamp(iso: Any) -> float | None:
    from datetime import datetime

    try:
        return datetime.fromisoformat(str(iso)).timestamp()
    except (TypeError, ValueError):
        return None


def media_type(path: Path) -> str:
    return MEDIA_TYPES.get(path.suffix.lower(), "application/octet-stream")


__all__ = ["SessionStore", "open_checkpointer", "sanitize_filename", "check_session_id", "UPLOAD_SUFFIXES",
           "REPORT_SUFFIXES", "media_type"]
