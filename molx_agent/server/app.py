"""The molx-agent web app: an HTTP API (FastAPI) and a page at ``/`` (static files shipped in the package).

``create_app(settings=None, agent_factory=None)`` builds the app; ``agent_factory(molx_settings, checkpointer)``
returns the agent (default: a :class:`~molx_agent.agents.molx.MolxAgent` on the default engine, route searches
bounded by ``ServerSettings.max_searches``).  Every error is JSON ``{"error": {"code", "message", ...}}``, never a
traceback.  See docs/server.md.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import os
import re
from collections.abc import Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from fastapi import FastAPI, File, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from molx_agent.config import Settings, get_settings
from molx_agent.errors import ConfigError, DataError, RetroError, ValidationError
from molx_agent.server.runner import AgentRunner, BoundedSearches, ProcessSearches
from molx_agent.server.store import SessionStore, check_session_id, media_type, open_checkpointer

logger = logging.getLogger(__name__)

STATIC_DIR = Path(__file__).resolve().parent / "static"
API = "/api/v1"
#: Run options a client may set (the contract of issue 26).
OPTION_KEYS = ("search_time", "retro_mode", "confirm_plan", "choose_route", "ask")
MAX_JSON_BODY = 1_000_000
MAX_BATCH = 20
#: Paths served without the API key: the page, its static files and the offline API docs page (they ask for it).
PUBLIC_PATHS = ("/", "/index.html", "/docs", "/favicon.ico")
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
       "frame-src 'self' blob: data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'")

#: HTTP status of an error code (anything else: 400 for a RetroError, 500 otherwise).
STATUS_OF = {
    "session_not_found": 404, "file_not_found": 404, "unknown_thread": 404, "not_found": 404,
    "session_exists": 409, "session_busy": 409, "file_too_large": 413, "request_too_large": 413,
    "unsupported_file": 415, "missing_api_key": 401, "invalid_api_key": 401, "method_not_allowed": 405,
    "postgres_unavailable": 500, "checkpointer_unavailable": 503, "chat_db_unavailable": 503,
}


@dataclass
class ServerSettings:
    """Settings of ``molx-agent serve`` (environment: ``MOLX_API_KEY``, ``MOLX_MAX_UPLOAD_MB``, ``MOLX_MAX_SEARCHES``,
    ``MOLX_SERVER_WORKERS``, ``MOLX_CHECKPOINTER_URL``)."""

    host: str = "127.0.0.1"
    port: int = 8000
    api_key: str | None = None
    max_upload_mb: float = 20.0
    max_searches: int = 2
    workers: int = 24
    checkpointer_url: str | None = None
    session_wait: float = 600.0
    stream_timeout: float = 3600.0
    molx: Settings = field(default_factory=get_settings)

    @classmethod
    def from_env(cls, **overrides: Any) -> ServerSettings:
        env = os.environ

        def num(name: str, default: float, kind: type = float) -> Any:
            raw = env.get(name)
            if raw is None or not raw.strip():
                return default
            try:
                value = kind(raw)
            except ValueError:
                raise ConfigError("invalid_settings", f"{name} must be a number, got {raw!r}", value=raw) from None
            if value <= 0:
                raise ConfigError("invalid_settings", f"{name} must be positive, got {raw!r}", value=raw)
            return value

        values: dict[str, Any] = {
            "api_key": env.get("MOLX_API_KEY") or None,
            "max_upload_mb": num("MOLX_MAX_UPLOAD_MB", 20.0),
            "max_searches": num("MOLX_MAX_SEARCHES", 2, int),
            "workers": num("MOLX_SERVER_WORKERS", 24, int),
            "checkpointer_url": env.get("MOLX_CHECKPOINTER_URL") or None,
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        if "molx" not in values:
            values["molx"] = get_settings()
        return cls(**values)


# -- request bodies --------------------------------------------------------------------------------------------
class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class QueryBody(_Body):
    query: str = Field(description="The chemist's question, in English or Chinese.")
    session_id: str | None = Field(default=None, description="Session to answer in (default: a new session).")
    files: list[str] | None = Field(default=None, description="Names of files uploaded to the session.")
    options: dict[str, Any] | None = Field(default=None, description=f"Run options: {', '.join(OPTION_KEYS)}.")


class ResumeBody(_Body):
    session_id: str | None = Field(default=None, description="The interrupted session (its thread id).")
    thread_id: str | None = Field(default=None, description="Same as session_id (the id an interrupt names).")
    answer: Any = Field(default=None, description="The interrupt's answer (see the interrupt's answer_schema); "
                                                  "null continues a run that stopped (crash, restart).")


class BatchItem(_Body):
    query: str
    files: list[str] | None = None
    options: dict[str, Any] | None = None


class BatchBody(_Body):
    queries: list[str | BatchItem] = Field(description=f"At most {MAX_BATCH} questions; each runs in its own new "
                                                        "session unless session_id is given.")
    session_id: str | None = None
    options: dict[str, Any] | None = None


class SessionBody(_Body):
    name: str | None = Field(default=None, max_length=200)
    id: str | None = Field(default=None, description="Optional id (default: a new random id).")


# -- helpers ---------------------------------------------------------------------------------------------------
def error_body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, **{k: v for k, v in extra.items() if v is not None}}}


def error_payload(exc: BaseException) -> tuple[int, dict[str, Any]]:
    """HTTP status and JSON body of an error (a library error keeps its code; anything else is internal)."""
    if isinstance(exc, RetroError):
        d = exc.to_dict()
        status = STATUS_OF.get(exc.code, 500 if isinstance(exc, ConfigError) else 400)
        return status, error_body(exc.code, exc.message, hint=d.get("hint"), type=d.get("error_type"))
    if isinstance(exc, (FileNotFoundError, IsADirectoryError)):
        return 404, error_body("file_not_found", "file not found")
    logger.error("internal error: %s: %s", type(exc).__name__, exc, exc_info=exc)
    return 500, error_body("internal_error", f"internal error ({type(exc).__name__}); see the server log")


def check_options(options: dict[str, Any] | None) -> dict[str, Any]:
    if not options:
        return {}
    unknown = sorted(set(options) - set(OPTION_KEYS))
    if unknown:
        raise ValidationError("invalid_options", f"unknown option(s): {', '.join(unknown)}",
                              hint=f"options are {', '.join(OPTION_KEYS)}")
    out = dict(options)
    if "search_time" in out and out["search_time"] is not None:
        from molx_agent.cli.run import check_search_time

        out["search_time"] = check_search_time(out["search_time"])
    return out


_FILE_TOKEN = re.compile(r"(?<![\w\-./\\])[\w\-./\\]+\.(?:csv|tsv|tab|xlsx|xlsm|sdf|sd|smi)\b", re.IGNORECASE)


def confine_query(store: SessionStore, session_id: str, query: str, files: list[str]) -> tuple[str, list[str]]:
    """The query and input files of a turn, confined to the session: each file the body names is one of the
    session's files; each data file the query names must be an upload of the session (its name is replaced by the
    upload's path, so the agent never reads a file outside the session)."""
    paths = [str(store.input_file(session_id, f)) for f in files or []]
    uploads = {p.name.lower(): p for p in (store.files_dir(session_id) / "uploads").glob("*") if p.is_file()}

    def swap(m: re.Match[str]) -> str:
        token = m.group(0)
        name = re.split(r"[\\/]", token)[-1].lower()
        path = uploads.get(name)
        if path is None:
            raise ValidationError("file_not_in_session", f"the question names {token!r}, which is not a file of this "
                                  "session", value=token, hint="upload it first (POST /api/v1/sessions/{id}/files)")
        if str(path) not in paths:
            paths.append(str(path))
        return str(path)

    return _FILE_TOKEN.sub(swap, query), paths


@lru_cache(maxsize=2048)
def depict_svg(smiles: str, width: int, height: int) -> str:
    """An SVG of a molecule (or a reaction: ``A.B>>C``) drawn by RDKit; ``ValidationError`` when unparsable."""
    from rdkit import Chem
    from rdkit.Chem import rdChemReactions
    from rdkit.Chem.Draw import rdMolDraw2D

    from molx_agent.limits import check_smiles_text

    smiles = check_smiles_text(smiles)
    drawer = rdMolDraw2D.MolDraw2DSVG(width, height)
    opts = drawer.drawOptions()
    opts.clearBackground = False
    if ">" in smiles:
        try:
            rxn = rdChemReactions.ReactionFromSmarts(smiles, useSmiles=True)
        except Exception:  # noqa: BLE001 - RDKit raises ValueError or RuntimeError
            rxn = None
        if rxn is None:
            raise ValidationError("invalid_smiles", f"cannot parse the reaction SMILES {smiles[:80]!r}", value=smiles)
        drawer.DrawReaction(rxn)
    else:
        mol = Chem.MolFromSmiles(smiles)
        if mol is None:
            raise ValidationError("invalid_smiles", f"cannot parse the SMILES {smiles[:80]!r}", value=smiles[:80])
        rdMolDraw2D.PrepareAndDrawMolecule(drawer, mol)
    drawer.FinishDrawing()
    return drawer.GetDrawingText()


def default_agent_factory(max_searches: int, search_processes: bool = True) -> Callable[[Settings, Any], Any]:
    def build(molx: Settings, checkpointer: Any) -> Any:
        from molx_agent.agents.molx import MolxAgent
        from molx_agent.retro.engine import RetroEngine, default_engine

        def engine() -> Any:
            same = getattr(molx, "retro_stock", None) == getattr(get_settings(), "retro_stock", None)
            return default_engine() if same else RetroEngine.from_settings(molx)

        bounded = (ProcessSearches if search_processes else BoundedSearches)(engine, max_searches)
        return MolxAgent(settings=molx, checkpointer=checkpointer, engine=bounded, search_workers=1)

    return build


def sse(event: dict[str, Any]) -> bytes:
    name = str(event.get("event") or "message")
    return f"event: {name}\ndata: {json.dumps(event, ensure_ascii=False, allow_nan=False)}\n\n".encode()


# -- the app ---------------------------------------------------------------------------------------------------
def create_app(settings: ServerSettings | None = None,
               agent_factory: Callable[[Settings, Any], Any] | None = None) -> FastAPI:
    """The web app.  ``settings``: :class:`ServerSettings` (default: from the environment).
    ``agent_factory(molx_settings, checkpointer) -> agent``: tests inject an agent on a toy engine."""
    from molx_agent import __version__

    settings = settings or ServerSettings.from_env()
    molx = settings.molx
    checkpointer, conn = open_checkpointer(settings.checkpointer_url, molx.home_dir)
    sqlite_path = None
    if not settings.checkpointer_url:
        sqlite_path = molx.home_dir / "chat.sqlite"
    elif settings.checkpointer_url.startswith("sqlite:///"):
        sqlite_path = Path(settings.checkpointer_url[len("sqlite:///"):]).expanduser()
    store = SessionStore(molx.home_dir, checkpointer, max_upload_bytes=int(settings.max_upload_mb * 1e6),
                         sqlite_path=sqlite_path)
    agent = (agent_factory or default_agent_factory(settings.max_searches))(molx, checkpointer)
    runner = AgentRunner(agent, store, max_workers=settings.workers, session_wait=settings.session_wait,
                         stream_timeout=settings.stream_timeout)

    @asynccontextmanager
    async def lifespan(app: FastAPI):  # noqa: ANN202
        yield
        runner.close()
        closer = getattr(getattr(agent, "_engine", None), "close", None)
        if callable(closer):
            closer()
        try:
            conn.close()
        except Exception:  # noqa: BLE001 - closing at shutdown
            pass

    app = FastAPI(title="molx-agent", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None,
                  description="Medicinal-chemistry copilot: molecule questions, SAR analysis and retrosynthesis. "
                              "Send the API key (when the server has one) as `Authorization: Bearer KEY` or "
                              "`X-API-Key: KEY`.")
    app.state.settings = settings
    app.state.store = store
    app.state.runner = runner
    app.state.agent = agent

    # -- errors as JSON --------------------------------------------------------------------------------------
    @app.exception_handler(RetroError)
    async def _retro_error(request: Request, exc: RetroError) -> JSONResponse:
        status, body = error_payload(exc)
        return JSONResponse(body, status_code=status)

    @app.exception_handler(RequestValidationError)
    async def _bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = []
        for err in exc.errors()[:10]:
            loc = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
            problems.append(f"{loc or 'body'}: {err.get('msg', 'invalid')}")
        return JSONResponse(error_body("invalid_request", "; ".join(problems) or "invalid request"), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, f"http_{exc.status_code}")
        return JSONResponse(error_body(code, str(exc.detail)), status_code=exc.status_code)

    @app.exception_handler(Exception)
    async def _internal(request: Request, exc: Exception) -> JSONResponse:
        status, body = error_payload(exc)
        return JSONResponse(body, status_code=status)

    # -- the API key, body size, security headers -----------------------------------------------------------
    @app.middleware("http")
    async def _guard(request: Request, call_next: Callable[..., Any]) -> Response:
        path = request.url.path
        public = path in PUBLIC_PATHS or path.startswith("/static/")
        if settings.api_key and not public:
            given = request.headers.get("x-api-key")
            auth = request.headers.get("authorization") or ""
            if given is None and auth[:7].lower() == "bearer ":
                given = auth[7:].strip()
            if not given:
                return JSONResponse(error_body("missing_api_key", "this server needs an API key",
                                               hint="send Authorization: Bearer KEY or X-API-Key: KEY"),
                                    status_code=401, headers={"WWW-Authenticate": "Bearer"})
            if not hmac.compare_digest(given.encode(), settings.api_key.encode()):
                return JSONResponse(error_body("invalid_api_key", "wrong API key"), status_code=401,
                                    headers={"WWW-Authenticate": "Bearer"})
        length = request.headers.get("content-length")
        limit = (settings.max_upload_mb * 1e6 + 64_000) if "multipart/" in (request.headers.get("content-type")
                                                                            or "") else MAX_JSON_BODY
        if length is not None:
            try:
                too_big = int(length) > limit
            except ValueError:
                too_big = False
            if too_big:
                code = "file_too_large" if limit > MAX_JSON_BODY else "request_too_large"
                return JSONResponse(error_body(code, f"the request is larger than {limit / 1e6:.1f} MB"),
                                    status_code=413)
        try:
            response = await call_next(request)
        except Exception as exc:  # noqa: BLE001 - never a traceback to the client
            status, body = error_payload(exc)
            response = JSONResponse(body, status_code=status)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        if public:
            response.headers.setdefault("Content-Security-Policy", CSP)
            response.headers.setdefault("X-Frame-Options", "DENY")
        return response

    # -- the page --------------------------------------------------------------------------------------------
    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html", media_type="text/html; charset=utf-8")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> FileResponse:
        return FileResponse(STATIC_DIR / "docs.html", media_type="text/html; charset=utf-8")

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> Response:
        return Response(status_code=204)

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    # -- health ----------------------------------------------------------------------------------------------
    @app.get("/health", tags=["health"], summary="Liveness and readiness")
    async def health() -> dict[str, Any]:
        engine = getattr(agent, "_engine", None)
        return {"status": "ok", "version": __version__,
                "checkpointer": "postgres" if (settings.checkpointer_url or "").startswith("postgres") else "sqlite",
                "streaming": runner.can_stream, "interrupts": runner.can_answer,
                "max_searches": settings.max_searches,
                "active_searches": getattr(engine, "active", None), "turns": runner.turns}

    # -- agent -----------------------------------------------------------------------------------------------
    def _session_for(session_id: str | None) -> str:
        if session_id:
            store.ensure(check_session_id(session_id))
            return session_id
        return store.create()["id"]

    def _prepare(body: QueryBody) -> tuple[str, str, list[str], dict[str, Any]]:
        options = check_options(body.options)
        sid = _session_for(body.session_id)
        query, files = confine_query(store, sid, body.query, body.files or [])
        return sid, query, files, options

    @app.post(f"{API}/agent/invoke", tags=["agent"], summary="Answer one question (waits for the answer)")
    async def agent_invoke(body: QueryBody) -> dict[str, Any]:
        sid, query, files, options = await asyncio.to_thread(_prepare, body)
        return await runner.invoke(sid, query, files, options)

    def _event_error(exc: BaseException) -> dict[str, Any]:
        status, body = error_payload(exc)
        return {"event": "error", "status": status, **body["error"]}

    def _sse_response(gen: Any, sid: str) -> StreamingResponse:
        async def body() -> Any:
            yield sse({"event": "session", "session_id": sid})
            async for event in gen:
                yield sse(event)

        return StreamingResponse(body(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    @app.post(f"{API}/agent/stream", tags=["agent"],
              summary="Answer one question as Server-Sent Events (node_start, node_end, progress, interrupt, final)")
    async def agent_stream(body: QueryBody) -> StreamingResponse:
        sid, query, files, options = await asyncio.to_thread(_prepare, body)
        return _sse_response(runner.stream(sid, query, files, options, error_event=_event_error), sid)

    def _resume_session(body: ResumeBody) -> str:
        sid = body.session_id or body.thread_id
        if not sid:
            raise ValidationError("missing_session_id", "give the session_id (or thread_id) of the interrupted run")
        store.ensure(check_session_id(sid))
        return sid

    @app.post(f"{API}/agent/resume", tags=["agent"], summary="Answer an interrupt (or continue a stopped run)")
    async def agent_resume(body: ResumeBody, request: Request) -> Any:
        sid = await asyncio.to_thread(_resume_session, body)
        if "text/event-stream" in (request.headers.get("accept") or ""):
            return _sse_response(runner.stream(sid, None, [], {}, answer=body.answer, resuming=True,
                                               error_event=_event_error), sid)
        return await runner.resume(sid, body.answer)

    @app.post(f"{API}/agent/resume/stream", tags=["agent"], summary="Answer an interrupt, as Server-Sent Events")
    async def agent_resume_stream(body: ResumeBody) -> StreamingResponse:
        sid = await asyncio.to_thread(_resume_session, body)
        return _sse_response(runner.stream(sid, None, [], {}, answer=body.answer, resuming=True,
                                           error_event=_event_error), sid)

    @app.post(f"{API}/agent/batch", tags=["agent"], summary=f"Answer up to {MAX_BATCH} questions")
    async def agent_batch(body: BatchBody) -> dict[str, Any]:
        if not body.queries:
            raise ValidationError("empty_batch", "give at least one query")
        if len(body.queries) > MAX_BATCH:
            raise ValidationError("batch_too_large", f"at most {MAX_BATCH} queries per batch, got {len(body.queries)}")
        items = [q if isinstance(q, BatchItem) else BatchItem(query=q) for q in body.queries]

        async def one(item: BatchItem) -> dict[str, Any]:
            try:
                qb = QueryBody(query=item.query, session_id=body.session_id, files=item.files,
                               options={**(body.options or {}), **(item.options or {})} or None)
                sid, query, files, options = await asyncio.to_thread(_prepare, qb)
                return await runner.invoke(sid, query, files, options)
            except Exception as exc:  # noqa: BLE001 - one failed question does not fail the batch
                status, err = error_payload(exc)
                return {"status": "error", "query": item.query, "http_status": status, **err}

        if body.session_id:  # one conversation: in order
            results = [await one(item) for item in items]
        else:
            results = list(await asyncio.gather(*(one(item) for item in items)))
        return {"results": results, "n_errors": sum(r.get("status") == "error" for r in results)}

    # -- sessions --------------------------------------------------------------------------------------------
    @app.post(f"{API}/sessions", tags=["sessions"], status_code=201, summary="Start a session")
    async def session_create(body: SessionBody | None = None) -> dict[str, Any]:
        body = body or SessionBody()
        return await asyncio.to_thread(store.create, body.id, body.name)

    @app.get(f"{API}/sessions", tags=["sessions"], summary="List sessions (also those of `molx-agent chat`)")
    async def session_list() -> dict[str, Any]:
        return {"sessions": await asyncio.to_thread(store.list)}

    def _session_detail(session_id: str) -> dict[str, Any]:
        from molx_agent.agents.recorder import SessionRecorder

        meta = store.ensure(check_session_id(session_id))
        turns = SessionRecorder.for_session(store.home_dir, session_id).turns()
        return {**meta, "n_turns": len(turns), "files": store.list_files(session_id),
                "interrupt": pending_interrupt(agent, session_id)}

    @app.get(f"{API}/sessions/{{session_id}}", tags=["sessions"], summary="A session: name, files, pending interrupt")
    async def session_get(session_id: str) -> dict[str, Any]:
        return await asyncio.to_thread(_session_detail, session_id)

    @app.delete(f"{API}/sessions/{{session_id}}", tags=["sessions"], summary="Delete a session and its files")
    async def session_delete(session_id: str) -> dict[str, Any]:
        await asyncio.to_thread(store.delete, check_session_id(session_id))
        return {"deleted": session_id}

    def _history(session_id: str) -> dict[str, Any]:
        from molx_agent.agents.recorder import SessionRecorder

        store.ensure(check_session_id(session_id))
        return {"session_id": session_id, "messages": session_messages(agent, session_id),
                "turns": SessionRecorder.for_session(store.home_dir, session_id).turns()}

    @app.get(f"{API}/sessions/{{session_id}}/history", tags=["sessions"], summary="Messages and turns of a session")
    async def session_history(session_id: str) -> dict[str, Any]:
        return await asyncio.to_thread(_history, session_id)

    # -- files -----------------------------------------------------------------------------------------------
    @app.post(f"{API}/sessions/{{session_id}}/files", tags=["files"], status_code=201,
              summary="Upload a data file (CSV, TSV, XLSX, SDF, SMI; multipart field `file`)")
    async def file_upload(session_id: str, file: UploadFile = File(...)) -> dict[str, Any]:
        check_session_id(session_id)
        limit = int(settings.max_upload_mb * 1e6)
        chunks, size = [], 0
        while True:
            chunk = await file.read(1 << 20)
            if not chunk:
                break
            size += len(chunk)
            if size > limit:
                raise DataError("file_too_large", f"the upload is larger than the limit of "
                                f"{settings.max_upload_mb:g} MB (MOLX_MAX_UPLOAD_MB)")
            chunks.append(chunk)
        return await asyncio.to_thread(store.save_upload, session_id, file.filename or "", b"".join(chunks))

    @app.get(f"{API}/sessions/{{session_id}}/files", tags=["files"], summary="The session's files")
    async def file_list(session_id: str) -> dict[str, Any]:
        return {"session_id": session_id, "files": await asyncio.to_thread(store.list_files, session_id)}

    @app.get(f"{API}/sessions/{{session_id}}/files/{{path:path}}", tags=["files"], summary="Download a file")
    async def file_download(session_id: str, path: str, inline: bool = False) -> FileResponse:
        store.ensure(check_session_id(session_id))
        real = await asyncio.to_thread(store.resolve, session_id, path)
        headers = {"Content-Security-Policy": "sandbox", "Cache-Control": "no-store"}
        return FileResponse(real, media_type=media_type(real), filename=real.name,
                            content_disposition_type="inline" if inline else "attachment", headers=headers)

    # -- chemistry helpers for the page ----------------------------------------------------------------------
    @app.get(f"{API}/depict", tags=["chemistry"], summary="An SVG drawing of a molecule or reaction SMILES")
    async def depict(smiles: str, width: int = 260, height: int = 180) -> Response:
        width = max(60, min(int(width), 1200))
        height = max(60, min(int(height), 900))
        svg = await asyncio.to_thread(depict_svg, smiles, width, height)
        return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "private, max-age=3600"})

    return app


def pending_interrupt(agent: Any, session_id: str) -> Any:
    """The payload of the interrupt ``session_id`` waits on, or None."""
    try:
        snapshot = agent.graph.get_state({"configurable": {"thread_id": session_id}})
    except Exception:  # noqa: BLE001 - no graph state: nothing pending
        return None
    for intr in getattr(snapshot, "interrupts", ()) or ():
        return getattr(intr, "value", None)
    return None


def session_messages(agent: Any, session_id: str) -> list[dict[str, str]]:
    """``[{"role": "user"|"assistant", "content"}]`` of a session, oldest first (as ``ChatSession.history``)."""
    from langchain_core.messages import AIMessage, HumanMessage

    snapshot = agent.graph.get_state({"configurable": {"thread_id": session_id}})
    out = []
    for m in (snapshot.values or {}).get("messages") or []:
        if isinstance(m, HumanMessage):
            out.append({"role": "user", "content": str(m.content)})
        elif isinstance(m, AIMessage):
            out.append({"role": "assistant", "content": str(m.content)})
    return out


__all__ = ["create_app", "ServerSettings", "OPTION_KEYS", "depict_svg", "confine_query", "error_payload"]
