"""``molx-agent run --query Q [--data FILE]... [--output-dir D] [--json | --stream] [--llm rules|openai]
[--search-time S] [--thread-id ID] [--confirm] [--choose-route] [--retro-mode auto|guided [--ask]] | --resume ID``.

``--retro-mode guided`` (or ``MOLX_RETRO_MODE=guided``): the retrosynthesis drives the step-by-step pipeline, the
LLM taking each decision (the rules without one); with ``--ask`` the chemist answers each decision (the run stops at
an interrupt, exit 3, and ``molx-agent resume ID --answer JSON`` continues it).

Every run is checkpointed in ``MOLX_HOME/runs.sqlite`` under its thread id (``--json`` prints it); a run that was
interrupted (killed, machine restarted) continues from its last checkpoint with ``--resume ID``.

A chemist in the loop: ``--confirm`` (approve the plan), ``--choose-route`` (pick the reported route when several
exist) and ``--ask`` (guided mode's decisions) stop the run at a question: exit status 3, the question printed (with
``--json``: ``{"status": "interrupted", "thread_id", "interrupt"}``); ``molx-agent resume ID --answer JSON`` goes on.
``--stream`` prints the run's events as NDJSON (``node_start``, ``node_end``, ``progress``, ``interrupt``, last
``final``: the ``--json`` document); on a terminal the same events show as a live status line on stderr.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

#: Data files ``--data`` accepts (same list as the SAR readers).
DATA_SUFFIXES = (".csv", ".tsv", ".tab", ".txt", ".smi", ".xlsx", ".xlsm", ".sdf", ".sd")
LLM_CHOICES = ("rules", "openai", "auto")
RETRO_MODES = ("auto", "guided")
RUNS_DB = "runs.sqlite"
#: Exit status of a run stopped at a question for the chemist (``molx-agent resume`` continues it).
EXIT_INTERRUPTED = 3


def check_data_files(files: list[str] | None) -> list[str]:
    """Each ``--data`` file must exist, be a readable file within the size limit and have a supported type,
    and a text file must really be text (``DataError`` naming the problem otherwise: a directory, gzip or
    binary data, an encoding that is not UTF-8/UTF-16, ... see ``molx_agent.io_utils``)."""
    from molx_agent.errors import DataError
    from molx_agent.io_utils import check_input_file
    from molx_agent.sar.io import check_data_file_content

    out = []
    for f in files or []:
        path = check_input_file(f, "data file", data=True)
        if path.suffix.lower() not in DATA_SUFFIXES:
            raise DataError("unsupported_file", f"unsupported data file type {path.suffix or '(none)'!r}: {f}",
                            value=f, hint=f"use one of {', '.join(DATA_SUFFIXES)}")
        check_data_file_content(path)
        out.append(str(path))
    return out


def check_output_dir(output_dir: str | Path) -> Path:
    """``output_dir`` created if needed; ``DataError`` (``output_dir_is_file``, ``output_dir_unwritable``)."""
    from molx_agent.io_utils import ensure_output_dir

    return ensure_output_dir(output_dir)


def check_search_time(search_time: float | None) -> float | None:
    from molx_agent.errors import ValidationError

    if search_time is None:
        return None
    try:
        value = float(search_time)
    except (TypeError, ValueError):
        raise ValidationError("invalid_search_time", f"--search-time must be a number of seconds, got {search_time!r}",
                              value=search_time) from None
    if not value > 0 or value != value or value == float("inf"):
        raise ValidationError("invalid_search_time", f"--search-time must be a positive number of seconds, got {value:g}",
                              value=search_time, hint="e.g. --search-time 30")
    return value


def check_retro_mode(retro_mode: str | None, ask: bool, settings_mode: str = "auto") -> dict[str, Any]:
    """The run options of ``--retro-mode`` / ``--ask`` (``{}`` when neither is given); ``ValidationError`` for an
    unknown mode or ``--ask`` outside the guided mode (given, or configured by ``MOLX_RETRO_MODE``)."""
    from molx_agent.errors import ValidationError

    out: dict[str, Any] = {}
    if retro_mode is not None:
        if retro_mode not in RETRO_MODES:
            raise ValidationError("invalid_retro_mode", f"--retro-mode must be one of {', '.join(RETRO_MODES)}, "
                                  f"got {retro_mode!r}", value=retro_mode, hint="e.g. --retro-mode guided")
        out["retro_mode"] = retro_mode
    if ask:
        if (retro_mode or settings_mode) != "guided":
            raise ValidationError("invalid_args", "--ask needs --retro-mode guided: --ask answers the decisions of "
                                  "the guided retrosynthesis", value="--ask", hint="add --retro-mode guided")
        out["ask"] = True
    return out


def build_agent(*, output_dir: str | Path | None = None, llm: str | None = None, engine: Any = None,
                checkpoint: bool = True) -> Any:
    """The MolxAgent of one ``run``: settings with the CLI overrides and, by default, a SQLite checkpointer in
    ``MOLX_HOME/runs.sqlite`` (so ``run --resume ID`` continues a run that was interrupted)."""
    from molx_agent.agents.molx import MolxAgent, open_sqlite_saver
    from molx_agent.config import get_settings
    from molx_agent.errors import DataError

    overrides: dict[str, Any] = {}
    if output_dir is not None:
        overrides["output_dir"] = check_output_dir(output_dir)
    if llm is not None:
        overrides["llm_provider"] = llm
    settings = get_settings(**overrides) if overrides else get_settings()
    reports = Path(settings.output_dir).expanduser()
    if reports.exists() and not reports.is_dir():  # fail now, not after the work (MOLX_OUTPUT_DIR)
        raise DataError("output_dir_is_file", f"the output directory {reports} (MOLX_OUTPUT_DIR) is a file",
                        value=str(reports), hint="set MOLX_OUTPUT_DIR or --output-dir to a directory")
    saver = open_sqlite_saver(settings.home_dir / RUNS_DB)[0] if checkpoint else None
    return MolxAgent(settings=settings, engine=engine, checkpointer=saver)


def run_options(search_time: float | None = None, *, confirm_plan: bool = False, choose_route: bool = False,
                retro_mode: str | None = None, ask: bool = False, settings_mode: str | None = None) -> dict[str, Any]:
    """The run options (``state["options"]``) of the CLI flags; ``ValidationError`` for a bad value.
    ``settings_mode``: the configured retro mode (``MOLX_RETRO_MODE``), which ``--ask`` may rely on."""
    options: dict[str, Any] = {}
    seconds = check_search_time(search_time)
    if seconds:
        options["search_time"] = seconds
    mode = str(retro_mode).strip().lower() if retro_mode is not None else None
    options.update(check_retro_mode(mode, ask, settings_mode or "auto"))
    for key, on in (("confirm_plan", confirm_plan), ("choose_route", choose_route)):
        if on:
            options[key] = True
    return options


def run_query(
    query: str | None,
    data: list[str] | None = None,
    *,
    output_dir: str | Path | None = None,
    llm: str | None = None,
    agent: Any = None,
    search_time: float | None = None,
    engine: Any = None,
    thread_id: str | None = None,
    resume: str | None = None,
    confirm_plan: bool = False,
    choose_route: bool = False,
    retro_mode: str | None = None,
    ask: bool = False,
    on_event: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Answer one query (or, with ``resume``, continue the interrupted run of that id); returns the JSON document
    ``--json`` prints.

    Keys: ``status`` (``done``), ``query``, ``thread_id``, ``intent``, ``intent_confidence``, ``intent_reasoning``,
    ``language``, ``tasks`` (each with its ``attempts``), ``results``, ``plan_history`` (every plan, with each task's
    inputs), ``reflection`` (every reflection: the issues behind each re-plan and the changes made), ``iterations``,
    ``final_answer``, ``report_paths``, ``errors``.  A run stopped at a question for the chemist (``confirm_plan``,
    ``choose_route``, ``ask``) gives ``{"status": "interrupted", "thread_id", "interrupt", "query"}``.
    ``search_time``: the first route search's time limit in seconds (re-plans may search longer).  ``on_event``:
    called with every :meth:`MolxAgent.stream` event (the run is streamed).
    ``retro_mode`` ("auto" | "guided") and ``ask``: run options ``retro_mode`` / ``ask`` (see the module docstring).
    """
    from molx_agent.errors import ValidationError
    from molx_agent.limits import check_query

    if llm is not None and llm not in LLM_CHOICES:
        raise ValidationError("invalid_llm_provider", f"--llm must be one of {', '.join(LLM_CHOICES)}", value=llm)
    if resume is not None:
        if not str(resume).strip():
            raise ValidationError("empty_run_id", "--resume needs the id of a run", value=resume)
        return resume_run(str(resume).strip(), None, output_dir=output_dir, llm=llm, agent=agent, engine=engine,
                          on_event=on_event)
    query = check_query(query)  # not a string, empty, too long: ValidationError
    files = check_data_files(data)
    if agent is None:
        agent = build_agent(output_dir=output_dir, llm=llm, engine=engine)
    options = run_options(search_time, confirm_plan=confirm_plan, choose_route=choose_route, retro_mode=retro_mode,
                          ask=ask, settings_mode=getattr(agent.settings, "retro_mode", "auto"))
    if output_dir is not None:  # a resumed run (another process) writes its reports there too
        options["output_dir"] = str(Path(output_dir).expanduser().resolve())
    if llm is not None:
        options["llm"] = llm
    if on_event is not None:
        return _streamed(agent.stream(query.strip(), files=files, thread_id=thread_id, options=options or None),
                         on_event)
    state = agent.invoke(query.strip(), files=files, thread_id=thread_id, options=options or None)
    return result_document(state, query.strip())


def _streamed(events: Any, on_event: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    final: dict[str, Any] = {}
    for event in events:
        on_event(event)
        if event.get("event") == "final":
            final = {k: v for k, v in event.items() if k != "event"}
    return final


def resume_run(thread_id: str, answer: Any = None, *, output_dir: str | Path | None = None, llm: str | None = None,
               agent: Any = None, engine: Any = None,
               on_event: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Continue the run ``thread_id`` of ``MOLX_HOME/runs.sqlite`` (``answer``: the answer to its pending question)
    and return its ``--json`` document.  The run's own ``--output-dir`` / ``--llm`` apply unless given again.
    Errors: ``unknown_thread`` (no such run), ``invalid_answer`` (the run still waits), ``no_pending_question``."""
    if agent is None:
        agent = build_agent(output_dir=output_dir, llm=llm, engine=engine)
        stored = _stored_options(agent, thread_id)
        if (output_dir is None and stored.get("output_dir")) or (llm is None and stored.get("llm")):
            agent = build_agent(output_dir=output_dir or stored.get("output_dir"), llm=llm or stored.get("llm"),
                                engine=engine)
    if on_event is not None:
        return _streamed(agent.stream_resume(thread_id, answer), on_event)
    state = agent.resume(thread_id, answer)
    return result_document(state, state.get("user_query", ""))


def _stored_options(agent: Any, thread_id: str) -> dict[str, Any]:
    try:
        snapshot = agent.graph.get_state({"configurable": {"thread_id": thread_id}})
    except Exception:  # noqa: BLE001 - an unreadable thread is reported by resume itself
        return {}
    options = (snapshot.values or {}).get("options") or {}
    return options if isinstance(options, dict) else {}


def result_document(state: dict[str, Any], query: str) -> dict[str, Any]:
    """The ``run --json`` document of a final state (:func:`molx_agent.agents.molx.run_document`)."""
    from molx_agent.agents.molx import run_document

    return run_document(state, query)


def exit_code_for(result: dict[str, Any]) -> int:
    """0 when every task is done (or skipped because not built / unsupported intent); 3 when the run stopped at a
    question for the chemist; 2 when a task failed because of bad input (an invalid SMILES, an unusable data file: ``molx_agent.errors.INPUT_ERROR_CODES``); 1 when any
    other task failed."""
    from molx_agent.errors import INPUT_ERROR_CODES

    if result.get("status") == "interrupted":
        return EXIT_INTERRUPTED
    tasks = result.get("tasks") or {}
    failed = [tid for tid, t in tasks.items() if t.get("status") == "failed"]
    if not failed:
        return 0
    results = result.get("results") or {}
    codes = {((results.get(tid) or {}).get("error") or {}).get("code") for tid in failed}
    return 2 if codes & INPUT_ERROR_CODES else 1


def print_result(result: dict[str, Any], *, json_out: bool = False) -> int:
    """Print a run's document (``--json``: one JSON object; else the answer, or the question of an interrupted
    run, plus warnings on stderr) and return its exit status."""
    from molx_agent.agents.interrupts import describe_interrupt
    from molx_agent.cli.common import emit_json

    if json_out:
        emit_json(result)
    elif result.get("status") == "interrupted":
        typer.echo(describe_interrupt(result.get("interrupt") or {}, result.get("thread_id")))
    else:
        typer.echo(result["final_answer"])
    if not json_out:
        for err in result.get("errors") or []:
            if err.get("code") == "warning":
                typer.echo(f"Warning: {err['message']}", err=True)
    return exit_code_for(result)


def run_and_print(call: Callable[[Callable[[dict[str, Any]], None] | None], dict[str, Any]], *, stream: bool,
                  json_out: bool) -> int:
    """``call(on_event)`` inside the run's :func:`event_sink`, then its document printed (with ``--stream`` the
    events already were the output); returns the exit status."""
    context, on_event = event_sink(stream, json_out)
    with context:
        result = call(on_event)
    return exit_code_for(result) if stream else print_result(result, json_out=json_out)


def event_sink(stream: bool, json_out: bool) -> tuple[Any, Callable[[dict[str, Any]], None] | None]:
    """``(context manager, on_event)`` of a run: NDJSON lines with ``--stream``, a live status line on a terminal
    (stderr) unless ``--json``, else nothing."""
    import contextlib
    import sys

    if stream:
        from molx_agent.cli.progress import ndjson_line

        return contextlib.nullcontext(), lambda event: typer.echo(ndjson_line(event))
    if not json_out and sys.stderr.isatty():
        from molx_agent.cli.progress import LiveProgress

        live = LiveProgress()
        return live, live
    return contextlib.nullcontext(), None


def register(app: typer.Typer) -> None:
    @app.command("run")
    def run_cmd(
        query: str = typer.Option(None, "--query", "-q", help="Your question, in English or Chinese."),
        data: list[str] = typer.Option(None, "--data", "-d", help="Compound data file (CSV/TSV/Excel/SDF); repeatable."),
        output_dir: str = typer.Option(None, "--output-dir", "-o", help="Where reports are written (default ./outputs)."),
        json_out: bool = typer.Option(False, "--json", help="Print one JSON object instead of prose."),
        stream: bool = typer.Option(False, "--stream", help="Print the run's events as NDJSON, one per line (last: "
                                    "final, the --json object)."),
        llm: str = typer.Option(None, "--llm", help="rules (offline) or openai; default from MOLX_LLM_PROVIDER (auto)."),
        search_time: float = typer.Option(None, "--search-time", help="Time limit (s) of the first route search; "
                                          "a re-plan may search longer."),
        thread_id: str = typer.Option(None, "--thread-id", help="Id to store this run under (default: a new one)."),
        resume: str = typer.Option(None, "--resume", help="Continue the interrupted run with this id."),
        confirm: bool = typer.Option(False, "--confirm", help="Stop for your approval of the plan (exit 3; "
                                     "`molx-agent resume ID --answer '{\"approve\": true}'`)."),
        choose_route: bool = typer.Option(False, "--choose-route", help="When several routes are found, stop so you "
                                          "choose the one reported (exit 3; answer {\"route\": i})."),
        retro_mode: str = typer.Option(None, "--retro-mode", help="auto (route search) or guided (step-by-step "
                                       "pipeline, the LLM taking each decision); default MOLX_RETRO_MODE."),
        ask: bool = typer.Option(False, "--ask", help="With --retro-mode guided: you answer each route decision "
                                 "(the run stops and is resumed with your answer)."),
    ) -> None:
        """Answer one question (molecule properties, retrosynthesis, SAR of a data file, ...)."""
        from molx_agent.cli.common import fail, handle_errors

        if query is None and resume is None:
            fail("give --query (or --resume ID to continue an interrupted run)")
        if stream and json_out:
            fail("--stream and --json are exclusive (the last --stream event is the --json object)")

        @handle_errors
        def go() -> int:
            return run_and_print(lambda on_event: run_query(
                query, data, output_dir=output_dir, llm=llm, search_time=search_time, thread_id=thread_id,
                resume=resume, confirm_plan=confirm, choose_route=choose_route, retro_mode=retro_mode, ask=ask,
                on_event=on_event), stream=stream, json_out=json_out)

        code = go()
        if code:
            raise typer.Exit(code)


__all__ = ["run_query", "resume_run", "run_options", "build_agent", "result_document", "check_data_files",
           "check_output_dir", "check_search_time",
           "check_retro_mode", "exit_code_for", "print_result", "run_and_print", "event_sink", "register",
           "DATA_SUFFIXES", "RUNS_DB", "RETRO_MODES", "EXIT_INTERRUPTED"]
