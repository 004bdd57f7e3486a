"""Runs the agent for the web server: in a thread pool (the event loop never waits for chemistry), one turn at a time
per session, at most ``max_searches`` route searches at once, events of a streamed run bridged to asyncio.

The agent follows the stream/interrupt/resume contract of issue 26 (``MolxAgent.stream``, ``stream_resume``,
``resume(thread_id, answer)``, results with ``status: "interrupted"``).  An agent without ``stream`` is run with
``invoke`` and streamed as ``node_start``/``final`` events only.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from molx_agent.errors import RetroError, ValidationError
from molx_agent.io_utils import to_jsonable

logger = logging.getLogger(__name__)

_END = object()


class BoundedSearches:
    """An engine proxy whose ``search`` waits for one of ``limit`` slots (every other attribute is the engine's).

    ``engine`` may be an engine or a zero-argument factory (called once, at first use: the default engine loads its
    model only when a route is really searched)."""

    def __init__(self, engine: Any, limit: int) -> None:
        self._engine_or_factory = engine
        self._engine: Any = None if callable(engine) and not hasattr(engine, "search") else engine
        self._slots = threading.BoundedSemaphore(max(1, int(limit)))
        self._lock = threading.Lock()
        self.active = 0
        self.peak = 0

    def _get(self) -> Any:
        with self._lock:
            if self._engine is None:
                self._engine = self._engine_or_factory()
            return self._engine

    def search(self, *args: Any, **kwargs: Any) -> Any:
        engine = self._get()
        with self._slots:
            with self._lock:
                self.active += 1
                self.peak = max(self.peak, self.active)
            try:
                return engine.search(*args, **kwargs)
            finally:
                with self._lock:
                    self.active -= 1

    def close(self) -> None:
        """Nothing to release (see :class:`ProcessSearches`)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._get(), name)


def _child_engine_search(target: str, kwargs: dict[str, Any], queue: Any) -> Any:
    """In a search process: ``RetroEngine.search`` on the process's engine (built once from the parent's spec),
    progress records sent back through ``queue``."""
    from molx_agent.agents import search_pool

    progress = queue.put if queue is not None else None
    return search_pool._CHILD_ENGINE.search(target, progress=progress, **kwargs)


class ProcessSearches(BoundedSearches):
    """Like :class:`BoundedSearches`, but each search runs in one of ``limit`` child processes (``spawn``; the
    engine is rebuilt there once from :func:`~molx_agent.agents.search_pool.engine_spec`): a route search never
    holds the server's GIL, so chat answers stay fast while searches run.  Progress records come back through a
    queue and reach the caller's ``progress`` callback; a broken pool falls back to searching in this process."""

    def __init__(self, engine: Any, limit: int) -> None:
        super().__init__(engine, limit)
        self.limit = max(1, int(limit))
        self._pool: Any = None
        self._manager: Any = None
        self._pool_lock = threading.Lock()

    def _get_pool(self) -> Any:
        with self._pool_lock:
            if self._pool is None:
                import multiprocessing
                from concurrent.futures import ProcessPoolExecutor

                from molx_agent.agents.search_pool import _init_child, engine_spec

                ctx = multiprocessing.get_context("spawn")
                self._manager = ctx.Manager()
                self._pool = ProcessPoolExecutor(max_workers=self.limit, mp_context=ctx, initializer=_init_child,
                                                 initargs=(engine_spec(self._get()),))
            return self._pool

    def search(self, target: str, *args: Any, progress: Any = None, **kwargs: Any) -> Any:
        from concurrent.futures import TimeoutError as FutureTimeout
        from concurrent.futures.process import BrokenProcessPool

        if args:  # positional arguments beyond the target: keep the engine's own signature
            return super().search(target, *args, progress=progress, **kwargs)
        with self._slots:
            with self._lock:
                self.active += 1
                self.peak = max(self.peak, self.active)
            try:
                try:
                    pool = self._get_pool()
                    queue = self._manager.Queue() if progress is not None else None
                    future = pool.submit(_child_engine_search, target, kwargs, queue)
                    while True:
                        try:
                            result = future.result(timeout=0.2)
                            break
                        except FutureTimeout:
                            self._relay(queue, progress)
                    self._relay(queue, progress)
                    return result
                except BrokenProcessPool as exc:
                    logger.warning("search process pool broke (%s); searching in the server process", exc)
                    with self._pool_lock:
                        self._pool = None
                    engine = self._get()
                    return engine.search(target, progress=progress, **kwargs) if progress is not None \
                        else engine.search(target, **kwargs)
            finally:
                with self._lock:
                    self.active -= 1

    @staticmethod
    def _relay(queue: Any, progress: Any) -> None:
        if queue is None:
            return
        import queue as queue_module

        while True:
            try:
                record = queue.get_nowait()
            except (queue_module.Empty, EOFError, OSError):
                return
            try:
                progress(record)
            except Exception as exc:  # noqa: BLE001 - a failing progress callback never stops the search
                logger.debug("progress callback failed: %s", exc)

    def close(self) -> None:
        with self._pool_lock:
            if self._pool is not None:
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = None
            if self._manager is not None:
                try:
                    self._manager.shutdown()
                except Exception:  # noqa: BLE001 - closing at shutdown
                    pass
                self._manager = None


class SessionBusy(RetroError):
    default_code = "session_busy"


class AgentRunner:
    """Runs turns of ``agent`` (a MolxAgent on the store's checkpointer) for sessions of ``store``."""

    def __init__(self, agent: Any, store: Any, *, max_workers: int = 8, session_wait: float = 600.0,
                 stream_timeout: float = 3600.0) -> None:
        self.agent = agent
        self.store = store
        self.executor = ThreadPoolExecutor(max_workers=max(1, max_workers), thread_name_prefix="molx-agent")
        self.session_wait = session_wait
        self.stream_timeout = stream_timeout
        self._session_locks: dict[str, threading.Lock] = {}
        self._locks_lock = threading.Lock()
        self.turns = 0

    def close(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)

    # -- capabilities of the agent (the contract of issue 26) ----------------------------------------
    @property
    def can_stream(self) -> bool:
        return callable(getattr(self.agent, "stream", None))

    @property
    def can_answer(self) -> bool:
        try:
            return "answer" in inspect.signature(self.agent.resume).parameters
        except (TypeError, ValueError, AttributeError):
            return False

    # -- one session at a time -----------------------------------------------------------------------
    def _lock_for(self, session_id: str) -> threading.Lock:
        with self._locks_lock:
            return self._session_locks.setdefault(session_id, threading.Lock())

    def _locked(self, session_id: str) -> threading.Lock:
        lock = self._lock_for(session_id)
        if not lock.acquire(timeout=self.session_wait):
            raise SessionBusy("session_busy", f"session {session_id!r} is still answering an earlier question",
                              hint="wait for it to finish, or use another session")
        return lock

    # -- synchronous turns (run in the pool) ---------------------------------------------------------
    def _invoke(self, session_id: str, query: str, files: list[str], options: dict[str, Any]) -> dict[str, Any]:
        lock = self._locked(session_id)
        try:
            kwargs: dict[str, Any] = {"files": files, "thread_id": session_id}
            if options:
                kwargs["options"] = options
            state = self.agent.invoke(query, **kwargs)
            return self._finish(session_id, state, query, files)
        finally:
            lock.release()

    def _resume(self, session_id: str, answer: Any) -> dict[str, Any]:
        lock = self._locked(session_id)
        try:
            state = self._call_resume(session_id, answer)
            return self._finish(session_id, state, state.get("user_query", ""), None)
        finally:
            lock.release()

    def _call_resume(self, session_id: str, answer: Any) -> dict[str, Any]:
        if answer is not None and not self.can_answer:
            raise ValidationError("interrupts_unsupported", "this agent cannot answer interrupts (resume has no "
                                  "answer argument)")
        if answer is None:
            return self.agent.resume(session_id)
        return self.agent.resume(session_id, answer)

    def _finish(self, session_id: str, state: dict[str, Any], query: str, files: list[str] | None) -> dict[str, Any]:
        """The response of a turn: the ``run --json`` document (or the interrupt), the session id and its files."""
        from molx_agent.agents.molx import run_document

        state = dict(state or {})
        if state.get("status") == "interrupted":
            doc = {"status": "interrupted", "thread_id": state.get("thread_id") or session_id,
                   "interrupt": state.get("interrupt"), "query": query or state.get("user_query", "")}
        else:
            doc = {**run_document(state, query or state.get("user_query", "")), "status": "done"}
        return self._decorate(session_id, doc, state, query, files)

    def _decorate(self, session_id: str, doc: dict[str, Any], state: dict[str, Any] | None, query: str,
                  files: list[str] | None) -> dict[str, Any]:
        from molx_agent.agents.recorder import SessionRecorder

        doc = dict(doc)
        doc["session_id"] = session_id
        if doc.get("status") != "interrupted" and not doc.get("event") == "interrupt":
            output_root = getattr(getattr(self.agent, "settings", None), "output_dir", None)
            new_files, moved = self.store.collect_reports(session_id, list(doc.get("report_paths") or []),
                                                          output_root)
            doc["files"] = new_files
            if moved and isinstance(doc.get("final_answer"), str):  # session paths, not the server's folders
                text = doc["final_answer"]
                for src, dest in sorted(moved.items(), key=lambda kv: -len(kv[0])):
                    text = text.replace(src, dest)
                doc["final_answer"] = text
            try:
                SessionRecorder.for_session(self.store.home_dir, session_id).record(
                    query or doc.get("query", ""), state if state is not None else doc, files=files,
                    thread_id=session_id)
            except OSError as exc:  # the log is a convenience; the checkpoint holds the state
                logger.warning("could not record the turn of session %s: %s", session_id, exc)
            self.turns += 1
        self.store.touch(session_id)
        return to_jsonable(doc)

    # -- asyncio front -------------------------------------------------------------------------------
    async def invoke(self, session_id: str, query: str, files: list[str], options: dict[str, Any]) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, self._invoke, session_id, query, files, options)

    async def resume(self, session_id: str, answer: Any) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, self._resume, session_id, answer)

    def _events(self, session_id: str, query: str | None, files: list[str], options: dict[str, Any],
                answer: Any, resuming: bool) -> Iterator[dict[str, Any]]:
        """The events of one turn (run in a pool thread)."""
        lock = self._locked(session_id)
        try:
            if self.can_stream:
                if resuming:
                    if answer is not None and not callable(getattr(self.agent, "stream_resume", None)):
                        raise ValidationError("interrupts_unsupported", "this agent cannot answer interrupts")
                    events = (self.agent.stream_resume(session_id, answer) if answer is not None
                              else self.agent.stream_resume(session_id, None))
                else:
                    kwargs: dict[str, Any] = {"files": files, "thread_id": session_id}
                    if options:
                        kwargs["options"] = options
                    events = self.agent.stream(query, **kwargs)
                for event in events:
                    event = dict(event)
                    if event.get("event") == "final":
                        yield self._decorate(session_id, {"status": "done", **event}, None,
                                             query or event.get("query", ""), files)
                    elif event.get("event") == "interrupt":
                        self.store.touch(session_id)
                        yield to_jsonable({**event, "session_id": session_id})
                    else:
                        yield to_jsonable(event)
            else:  # an agent without stream(): one node, then the final answer
                yield {"event": "node_start", "node": "agent"}
                if resuming:
                    state = self._call_resume(session_id, answer)
                    query = state.get("user_query", "")
                else:
                    kwargs = {"files": files, "thread_id": session_id}
                    if options:
                        kwargs["options"] = options
                    state = self.agent.invoke(query, **kwargs)
                yield {"event": "node_end", "node": "agent"}
                doc = self._finish(session_id, state, query or "", files)
                if doc.get("status") == "interrupted":
                    yield {"event": "interrupt", "thread_id": doc["thread_id"], "interrupt": doc["interrupt"],
                           "session_id": session_id}
                else:
                    yield {"event": "final", **doc}
        finally:
            lock.release()

    async def stream(self, session_id: str, query: str | None, files: list[str], options: dict[str, Any], *,
                     answer: Any = None, resuming: bool = False,
                     error_event: Callable[[BaseException], dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
        """Events of one turn as they happen; an error becomes one ``{"event": "error", ...}`` event; the stream ends
        after the final answer, an interrupt, an error, or ``stream_timeout`` seconds."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Any] = asyncio.Queue()

        def produce() -> None:
            try:
                for event in self._events(session_id, query, files, options, answer, resuming):
                    loop.call_soon_threadsafe(queue.put_nowait, event)
            except BaseException as exc:  # noqa: BLE001 - reported to the client as an error event
                loop.call_soon_threadsafe(queue.put_nowait, error_event(exc))
            finally:
                loop.call_soon_threadsafe(queue.put_nowait, _END)

        self.executor.submit(produce)
        deadline = time.monotonic() + self.stream_timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                yield {"event": "error", "code": "stream_timeout",
                       "message": f"no final answer within {self.stream_timeout:g} s; the run goes on and its "
                                  "result is stored in the session"}
                return
            try:
                item = await asyncio.wait_for(queue.get(), timeout=min(remaining, 15.0))
            except TimeoutError:
                yield {"event": "heartbeat"}
                continue
            if item is _END:
                return
            yield item


__all__ = ["AgentRunner", "BoundedSearches", "ProcessSearches", "SessionBusy"]
