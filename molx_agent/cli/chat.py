"""``molx-agent chat [--session ID]``: a multi-turn session persisted under MOLX_HOME.

Commands inside the chat: ``/history``, ``/clear``, ``/session``, ``/help``, ``/exit`` (or EOF).
Works with piped stdin: each line is one turn.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import Any, TextIO

import typer

HELP = "Commands: /history  /clear  /session  /help  /exit   (anything else is a question)"


def run_chat(
    session_id: str | None = None,
    *,
    lines: Iterable[str] | None = None,
    out: Callable[[str], None] | None = None,
    err: Callable[[str], None] | None = None,
    llm: str | None = None,
    interactive: bool | None = None,
    session: Any = None,
    must_exist: bool = False,
    engine: Any = None,
    search_time: float | None = None,
) -> dict[str, Any]:
    """Run the chat loop over ``lines`` (default: stdin); returns ``{"session_id", "turns", "errors"}``.

    ``must_exist``: ``session_id`` names a session to resume; an id with no stored conversation is a
    ``ValidationError("unknown_session")`` instead of silently starting a new session under that id.
    ``engine``: the retrosynthesis engine the session's agent uses (default: built from the settings when first
    needed); ``search_time``: the first route search's time limit of each turn.
    """
    from molx_agent.errors import RetroError, ValidationError

    out = out or typer.echo
    err = err or (lambda s: typer.echo(s, err=True))
    stream: TextIO | None = None
    if lines is None:
        stream = sys.stdin
        interactive = stream.isatty() if interactive is None else interactive
        lines = _prompting_lines(stream) if interactive else stream
    if session is None:
        from molx_agent.agents.molx import ChatSession
        from molx_agent.config import get_settings

        settings = get_settings(llm_provider=llm) if llm else get_settings()
        session = ChatSession(session_id, settings=settings, engine=engine)
    if must_exist and session_id and not session.exists():
        where = getattr(session, "db_path", "the chat database")
        session.close()
        raise ValidationError("unknown_session", f"no chat session {session_id!r} in {where} (a chat is stored once "
                              "it has answered a question)", value=session_id,
                              hint="`molx-agent chat` starts a new session and prints its id; add --create to start "
                                   f"one named {session_id!r}")
    options = {"search_time": search_time} if search_time else None
    shown: set[str] = set()
    for w in session.agent.warnings:
        shown.add(w)
        err(f"Warning: {w}")
    if interactive:
        out(f"molx-agent chat (session {session.session_id}). {HELP}")
    turns = 0
    errors = 0
    try:
        for raw in lines:
            text = raw.strip()
            if not text:
                continue
            cmd = text.lower()
            if cmd in ("/exit", "/quit", "/q"):
                break
            if cmd == "/help":
                out(HELP)
            elif cmd == "/session":
                out(session.session_id)
            elif cmd == "/clear":
                session.clear()
                out("Session cleared.")
            elif cmd == "/history":
                hist = session.history()
                if not hist:
                    out("(no messages yet)")
                for m in hist:
                    out(f"{'you' if m['role'] == 'user' else 'molx'}> {m['content']}")
            elif cmd.startswith("/"):
                err(f"Unknown command {text!r}. {HELP}")
                errors += 1
            else:
                try:
                    state = session.send(text, options=options)
                except RetroError as exc:
                    err(f"Error: {exc}")
                    errors += 1
                    continue
                out(state.get("final_answer", ""))
                for e in state.get("errors") or []:
                    if e.get("code") == "warning" and e.get("message") not in shown:
                        shown.add(e["message"])
                        err(f"Warning: {e['message']}")
                turns += 1
    finally:
        session.close()
    return {"session_id": session.session_id, "turns": turns, "errors": errors}


def _prompting_lines(stream: TextIO) -> Iterable[str]:
    while True:
        typer.echo("you> ", nl=False)
        line = stream.readline()
        if not line:
            typer.echo("")
            return
        yield line


def register(app: typer.Typer) -> None:
    @app.command("chat")
    def chat_cmd(
        session: str = typer.Option(None, "--session", "-s", help="Session id to resume (it must exist; default: a "
                                    "new session)."),
        create: bool = typer.Option(False, "--create", help="With --session: start that session if it does not exist."),
        llm: str = typer.Option(None, "--llm", help="rules (offline) or openai; default from MOLX_LLM_PROVIDER."),
        search_time: float = typer.Option(None, "--search-time", help="Time limit (s) of each turn's first route search."),
    ) -> None:
        """Multi-turn chat; the session survives restarts (resume with --session ID; an unknown ID is an error)."""
        from molx_agent.cli.common import fail, handle_errors

        if llm is not None and llm not in ("rules", "openai", "auto"):
            fail("--llm must be rules, openai or auto")
        if session is not None and not session.strip():
            fail("--session must not be empty")
        if search_time is not None and not search_time > 0:
            fail("--search-time must be a positive number of seconds")

        @handle_errors
        def go() -> dict[str, Any]:
            return run_chat(session, llm=llm, must_exist=session is not None and not create, search_time=search_time)

        result = go()
        typer.echo(f"(session {result['session_id']})", err=True)


__all__ = ["run_chat", "register", "HELP"]
