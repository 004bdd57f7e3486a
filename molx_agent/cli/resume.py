"""``molx-agent resume THREAD_ID [--answer JSON | --answer-file F] [--json | --stream] [--output-dir D] [--llm L]``.

Continues a ``run`` stopped at a question for the chemist (``run --confirm``, ``--choose-route``, guided ``--ask``;
exit status 3) from its checkpoint in ``MOLX_HOME/runs.sqlite``, in a new process.  ``--answer`` is the answer (JSON,
e.g. ``'{"approve": true}'``, ``'{"route": 1}'``; or a shortcut: ``yes``, ``no: <feedback>``, a route number, an
empty string for the default).  Without ``--answer``: a run still waiting prints its question again (exit 3), a run
that crashed goes on, a finished run prints its result.  An invalid answer or an unknown thread id is a clear error
(exit 2) and the run stays resumable.
"""

from __future__ import annotations

from typing import Any

import typer


def parse_answer(thread_id: str, text: str | None, agent: Any) -> Any:
    """The answer ``text`` for the question ``thread_id`` waits for: JSON, else a shortcut of that question."""
    from molx_agent.agents.interrupts import parse_answer_text
    from molx_agent.errors import ValidationError
    from molx_agent.limits import parse_json_text

    if text is None:
        return None
    snapshot = agent.graph.get_state({"configurable": {"thread_id": thread_id}})
    if not snapshot.values:
        raise ValidationError("unknown_thread", f"no run is stored under thread id {thread_id!r}", value=thread_id,
                              hint="the id is the thread_id an interrupted `molx-agent run` printed")
    pending = list(snapshot.interrupts or ())
    if not pending:
        raise ValidationError("no_pending_question", f"the run {thread_id!r} is not waiting for an answer",
                              value=thread_id, hint=f"`molx-agent resume {thread_id}` without --answer continues it")
    stripped = text.strip()
    if stripped[:1] in ("{", "[", '"') or stripped in ("true", "false", "null"):
        return parse_json_text(stripped, "--answer")  # malformed JSON: a clear invalid_json error
    return parse_answer_text(pending[0].value, text)


def register(app: typer.Typer) -> None:
    @app.command("resume")
    def resume_cmd(
        thread_id: str = typer.Argument(..., help="The thread id the interrupted run printed."),
        answer: str = typer.Option(None, "--answer", "-a", help="Your answer (JSON, e.g. '{\"approve\": true}', "
                                   "'{\"route\": 1}'; or yes / no: feedback / a route number)."),
        answer_file: str = typer.Option(None, "--answer-file", help="Read the answer from this JSON file (- = stdin)."),
        json_out: bool = typer.Option(False, "--json", help="Print one JSON object instead of prose."),
        stream: bool = typer.Option(False, "--stream", help="Print the run's events as NDJSON, one per line."),
        output_dir: str = typer.Option(None, "--output-dir", "-o", help="Where reports are written (default: the "
                                       "run's own)."),
        llm: str = typer.Option(None, "--llm", help="rules (offline) or openai; default: the run's own."),
    ) -> None:
        """Continue a run that stopped at a question (exit 3), e.g. after `run --confirm`, with your answer."""
        from molx_agent.cli.common import fail, handle_errors, parse_json_arg
        from molx_agent.cli.run import (
            LLM_CHOICES,
            build_agent,
            resume_run,
            run_and_print,
        )

        if not thread_id.strip():
            fail("give the thread id of the run to resume")
        if answer is not None and answer_file is not None:
            fail("give --answer or --answer-file, not both")
        if stream and json_out:
            fail("--stream and --json are exclusive (the last --stream event is the --json object)")
        if llm is not None and llm not in LLM_CHOICES:
            fail(f"--llm must be one of {', '.join(LLM_CHOICES)}")

        @handle_errors
        def go() -> int:
            tid = thread_id.strip()
            agent = build_agent(output_dir=output_dir, llm=llm)
            value = parse_json_arg(None, answer_file, "--answer") if answer_file is not None \
                else parse_answer(tid, answer, agent)
            if answer_file is None:
                agent = None  # resume_run rebuilds it with the run's own output folder and LLM setting
            return run_and_print(lambda on_event: resume_run(tid, value, output_dir=output_dir, llm=llm, agent=agent,
                                                             on_event=on_event), stream=stream, json_out=json_out)

        code = go()
        if code:
            raise typer.Exit(code)


__all__ = ["register", "parse_answer"]
