"""``molx-agent chat [--session ID] [--confirm] [--choose-route] [--retro-mode guided --ask]``: a multi-turn session
persisted under MOLX_HOME; a question for the chemist (plan approval, route choice, guided decisions) is asked
inline and answered on the next line.

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
    options: dict[str, Any] | None = None,
    live: Any = None,
) -> dict[str, Any]:
    """Run the chat loop over ``lines`` (default: stdin); returns ``{"session_id", "turns", "errors"}``.

    ``options``: run options of every turn (``confirm_plan``, ``choose_route``, ``retro_mode``, ``ask``): a turn that
    stops at a question prints it and reads the answer from the next line (JSON or a shortcut: ``yes``, ``no:
    feedback``, a route number, an empty line for the default); an invalid answer is asked again.  ``live``: an
    event callback (e.g. :class:`~molx_agent.cli.progress.LiveProgress`; default on a terminal) shown during a turn.

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
    options = {**(options or {}), **({"search_time": search_time} if search_time else {})} or None
    if live is None and interactive and sys.stderr.isatty():
        from molx_agent.cli.progress import LiveProgress

        live = LiveProgress()
    shown: set[str] = set()
    for w in session.agent.warnings:
        shown.add(w)
        err(f"Warning: {w}")
    if interactive:
        out(f"molx-agent chat (session {session.session_id}). {HELP}")
    turns = 0
    errors = 0
    lines = iter(lines)
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
                    state = _turn(session, live, lambda t=text: session.stream(t, options=options),
                                  lambda t=text: session.send(t, options=options))
                    state, stopped = _answer_questions(session, state, lines, live, out, err, interactive)
                except RetroError as exc:
                    err(f"Error: {exc}")
                    errors += 1
                    continue
                if stopped:
                    break
                out(state.get("final_answer", ""))
                for e in state.get("errors") or []:
                    if e.get("code") == "warning" and e.get("message") not in shown:
                        shown.add(e["message"])
                        err(f"Warning: {e['message']}")
                turns += 1
    finally:
        session.close()
    return {"session_id": session.session_id, "turns": turns, "errors": errors}


def _turn(session: Any, live: Any, streamed: Callable[[], Any], plain: Callable[[], Any]) -> dict[str, Any]:
    """One call of the session, shown live when ``live`` is set; returns the state (or the ``final`` document)."""
    if live is None:
        return plain()
    final: dict[str, Any] = {}
    with live if hasattr(live, "__enter__") else _nullcontext():
        for event in streamed():
            live(event)
            if event.get("event") == "final":
                final = {k: v for k, v in event.items() if k != "event"}
    return final


class _nullcontext:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


def _answer_questions(session: Any, state: dict[str, Any], lines: Any, live: Any, out: Callable[[str], None],
                      err: Callable[[str], None], interactive: bool | None) -> tuple[dict[str, Any], bool]:
    """While the turn waits for the chemist: print the question, read the answer from the next line, resume.
    Returns ``(state, stopped)``; ``stopped`` when the input ended (or /exit) before an answer."""
    from molx_agent.agents.interrupts import describe_interrupt, parse_answer_text
    from molx_agent.errors import ValidationError

    while state.get("status") == "interrupted":
        payload = state.get("interrupt") or {}
        out(describe_interrupt(payload))
        if interactive:
            typer.echo("answer> ", nl=False)
        raw = next(lines, None)
        if raw is None or raw.strip().lower() in ("/exit", "/quit", "/q"):
            err(f"(the question is still open: reopen the chat with --session {session.session_id} and ask again)")
            return state, True
        answer = parse_answer_text(payload, raw)
        try:
            state = _turn(session, live, lambda a=answer: session.stream_resume(a), lambda a=answer: session.resume(a))
        except ValidationError as exc:
            if exc.code not in ("invalid_answer", "no_pending_question"):
                raise
            err(f"Error: {exc}")
    return state, False


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
        confirm: bool = typer.Option(False, "--confirm", help="Ask for your approval of each plan (answer inline)."),
        choose_route: bool = typer.Option(False, "--choose-route", help="When several routes are found, ask which one "
                                          "is reported."),
        retro_mode: str = typer.Option(None, "--retro-mode", help="auto (default) or guided retrosynthesis."),
        ask: bool = typer.Option(False, "--ask", help="With --retro-mode guided: you answer the guided decisions."),
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
            from molx_agent.cli.run import run_options
            from molx_agent.config import get_settings

            options = run_options(None, confirm_plan=confirm, choose_route=choose_route, retro_mode=retro_mode, ask=ask,
                                  settings_mode=getattr(get_settings(), "retro_mode", "auto"))
            return run_chat(session, llm=llm, must_exist=session is not None and not create, search_time=search_time,
                            options=options or None)

        result = go()
        typer.echo(f"(session {result['session_id']})", err=True)


__all__ = ["run_chat", "register", "HELP"]
