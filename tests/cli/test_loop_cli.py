"""CLI of a chemist in the loop and streaming: run --confirm/--choose-route (exit 3), resume in a new process,
run --stream NDJSON, chat answering inline, live progress."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from molx_agent.cli.main import app
from tests.agents.conftest import PARACETAMOL

runner = CliRunner()
REPO = Path(__file__).resolve().parents[2]
ASPIRIN_Q = "What is the molecular weight of aspirin?"

#: runs the CLI in a new process with the two-route toy engine as the process's default engine
TOY_CLI = """
import sys, pathlib
sys.path.insert(0, {repo!r})
import molx_agent.retro.engine as engine_module
from tests.agents.conftest import two_route_engine
engine_module._DEFAULT = two_route_engine(pathlib.Path({tmp!r}))
from molx_agent.cli.main import main
sys.argv = ["molx-agent", *sys.argv[1:]]
main()
"""


def cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """``molx-agent ARGS`` in a new process (toy engine), MOLX_HOME of this test."""
    env = {**os.environ, "MOLX_HOME": str(tmp_path / "molx_home"), "MOLX_OUTPUT_DIR": str(tmp_path / "outputs")}
    code = TOY_CLI.format(repo=str(REPO), tmp=str(tmp_path))
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, timeout=180,
                          cwd=tmp_path)


@pytest.fixture
def toy(monkeypatch, tmp_path):
    import molx_agent.retro.engine as engine_module
    from tests.agents.conftest import two_route_engine

    monkeypatch.setattr(engine_module, "_DEFAULT", two_route_engine(tmp_path))


def test_run_confirm_exits_3_and_resume_in_a_new_process_answers(tmp_path):
    first = cli(tmp_path, "run", "--confirm", "--query", f"Plan a synthesis of {PARACETAMOL}", "--choose-route",
                "--json", "--llm", "rules")
    assert first.returncode == 3, first.stderr
    doc = json.loads(first.stdout)
    assert set(doc) == {"status", "thread_id", "interrupt", "query"} and doc["status"] == "interrupted"
    assert doc["interrupt"]["kind"] == "plan_approval"
    tid = doc["thread_id"]
    # an invalid answer: a clear error, exit 2, and the run still waits for the same question
    bad = cli(tmp_path, "resume", tid, "--answer", '{"approve": "perhaps"}')
    assert bad.returncode == 2 and "invalid answer to the plan_approval question" in bad.stderr
    assert "Traceback" not in bad.stderr
    second = cli(tmp_path, "resume", tid, "--answer", '{"approve": true}', "--json")
    assert second.returncode == 3, second.stderr
    question = json.loads(second.stdout)["interrupt"]
    assert question["kind"] == "route_choice" and len(question["options"]) == 2
    third = cli(tmp_path, "resume", tid, "--answer", "1", "--json")  # a shortcut: the route number
    assert third.returncode == 0, third.stderr
    final = json.loads(third.stdout)
    assert final["status"] == "done" and final["thread_id"] == tid
    assert final["results"]["t3"]["targets"][0]["best_route"] == 1
    assert "the chemist chose route 1" in final["final_answer"]
    # reports of the resumed run go to the run's own output folder
    assert all(p.startswith(str(tmp_path / "outputs")) for p in final["report_paths"])


def test_run_readable_question_and_resume_prose(tmp_path):
    res = runner.invoke(app, ["run", "--confirm", "--query", ASPIRIN_Q, "--llm", "rules"])
    assert res.exit_code == 3
    assert "Approve this plan (1 task(s))?" in res.stdout and "[t1] analysis" in res.stdout
    tid = res.stdout.split("molx-agent resume ")[1].split()[0]
    again = runner.invoke(app, ["resume", tid])  # no answer: the question again
    assert again.exit_code == 3 and "Approve this plan" in again.stdout
    done = runner.invoke(app, ["resume", tid, "--answer", "yes"])
    assert done.exit_code == 0, done.output
    assert "180.16" in done.stdout
    finished = runner.invoke(app, ["resume", tid, "--answer", "yes"])
    assert finished.exit_code == 2 and "is not waiting for an answer" in finished.stderr


@pytest.mark.parametrize(("args", "message"), [
    (["resume", "no-such-thread", "--answer", '{"approve": true}'], "no run is stored under thread id 'no-such-thread'"),
    (["resume", "no-such-thread"], "no run is stored under thread id 'no-such-thread'"),
    (["run", "--query", ASPIRIN_Q, "--retro-mode", "clever"], "--retro-mode must be one of auto, guided"),
    (["run", "--query", ASPIRIN_Q, "--ask"], "--ask needs --retro-mode guided"),
    (["run", "--query", ASPIRIN_Q, "--stream", "--json"], "--stream and --json are exclusive"),
])
def test_loop_cli_bad_input_exits_2(args, message):
    res = runner.invoke(app, [*args, "--llm", "rules"])
    assert res.exit_code == 2, res.output
    assert message in res.stderr and "Traceback" not in res.output


def test_resume_malformed_answer_json_exits_2(tmp_path):
    res = runner.invoke(app, ["run", "--confirm", "--query", ASPIRIN_Q, "--json", "--llm", "rules"])
    tid = json.loads(res.stdout)["thread_id"]
    bad = runner.invoke(app, ["resume", tid, "--answer", "{approve"])
    assert bad.exit_code == 2 and "not valid JSON" in bad.stderr
    ok = runner.invoke(app, ["resume", tid, "--answer", '{"approve": true}', "--json"])
    assert ok.exit_code == 0 and json.loads(ok.stdout)["status"] == "done"


def test_run_stream_prints_ndjson_events_last_final(toy):
    res = runner.invoke(app, ["run", "--query", f"Plan a synthesis of {PARACETAMOL}", "--stream", "--llm", "rules"])
    assert res.exit_code == 0, res.output
    lines = res.stdout.strip().splitlines()
    events = [json.loads(line) for line in lines]  # one JSON object per line
    assert all("event" in e for e in events) and events[-1]["event"] == "final"
    assert events[0] == {"event": "node_start", "node": "classify"}
    assert any(e["event"] == "progress" and e.get("stage") == "search" and e.get("routes_found") == 2
               for e in events)
    assert any(e["event"] == "node_end" and e.get("worker") == "reporter" for e in events)
    final = events[-1]
    assert final["status"] == "done" and "Found 2 route(s)" in final["final_answer"]


def test_run_stream_stops_at_the_interrupt_with_exit_3(toy):
    res = runner.invoke(app, ["run", "--query", f"Plan a synthesis of {PARACETAMOL}", "--stream", "--choose-route",
                              "--llm", "rules"])
    assert res.exit_code == 3, res.output
    events = [json.loads(line) for line in res.stdout.strip().splitlines()]
    assert [e["event"] for e in events[-2:]] == ["interrupt", "final"]
    assert events[-2]["interrupt"]["kind"] == "route_choice" and events[-1]["status"] == "interrupted"
    tid = events[-1]["thread_id"]
    resumed = runner.invoke(app, ["resume", tid, "--answer", '{"route": 0}', "--stream"])
    assert resumed.exit_code == 0, resumed.output
    last = json.loads(resumed.stdout.strip().splitlines()[-1])
    assert last["event"] == "final" and last["status"] == "done" and last["thread_id"] == tid


def test_chat_asks_inline_and_reasks_after_an_invalid_answer(toy):
    from molx_agent.cli.chat import run_chat

    outs, errs = [], []
    lines = [f"Plan a synthesis of {PARACETAMOL}", '{"approve": 3}', "yes", "route 7", "1", "/history"]
    result = run_chat(None, lines=lines, out=outs.append, err=errs.append, llm="rules",
                      options={"confirm_plan": True, "choose_route": True})
    text = "\n".join(outs)
    assert result["turns"] == 1 and result["errors"] == 0
    assert text.count("Approve this plan") == 2 and text.count("routes were found") == 2
    assert any("must be true or false" in e for e in errs) and any("from 0 to 1" in e for e in errs)
    assert "the chemist chose route 1" in text


def test_chat_input_ending_at_a_question_stops_cleanly(toy):
    from molx_agent.cli.chat import run_chat

    outs, errs = [], []
    result = run_chat(None, lines=[ASPIRIN_Q], out=outs.append, err=errs.append, llm="rules",
                      options={"confirm_plan": True})
    assert result["turns"] == 0 and any("the question is still open" in e for e in errs)


def test_live_progress_shows_the_run_on_a_terminal(toy):
    from rich.console import Console

    from molx_agent.cli.progress import LiveProgress
    from molx_agent.cli.run import run_query

    buf = io.StringIO()
    live = LiveProgress(Console(file=buf, force_terminal=True, width=120))
    with live:
        doc = run_query(f"Plan a synthesis of {PARACETAMOL}", llm="rules", on_event=live)
    assert doc["status"] == "done"
    assert any(line.startswith("disconnection: route search") and "2 route(s)" in line for line in live.lines)
    assert "disconnection (t2): done" in buf.getvalue() and "reporter (t4): done" in buf.getvalue()


def test_chat_cli_flags(toy):
    res = runner.invoke(app, ["chat", "--confirm", "--llm", "rules"], input=f"{ASPIRIN_Q}\nyes\n")
    assert res.exit_code == 0, res.output
    assert "Approve this plan" in res.stdout and "180.16" in res.stdout


def test_guided_ask_stops_at_each_decision_and_resumes_in_new_processes(tmp_path):
    """`run --retro-mode guided --ask`: exit 3 at a retro_decision question, `resume` in another process with the
    chemist's answer (an invalid one first: exit 2, still waiting), until the run is done."""
    first = cli(tmp_path, "run", "--retro-mode", "guided", "--ask", "--query", f"Plan a synthesis of {PARACETAMOL}",
                "--json", "--llm", "rules")
    assert first.returncode == 3, first.stderr
    doc = json.loads(first.stdout)
    assert doc["status"] == "interrupted" and doc["interrupt"]["kind"] == "retro_decision"
    tid = doc["thread_id"]
    bad = cli(tmp_path, "resume", tid, "--answer", '{"action": "no_such_action"}', "--json")
    # checked before the checkpoint is touched: exit 2, a clear message naming the offered actions, still waiting
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "unknown action 'no_such_action'" in bad.stderr and "use_default" in bad.stderr
    answers = 0
    result = None
    while answers < 12:
        step = cli(tmp_path, "resume", tid, "--answer", '{"action": "use_default"}', "--json")
        answers += 1
        assert step.returncode in (0, 3), step.stderr
        result = json.loads(step.stdout)
        if step.returncode == 0:
            break
        assert result["interrupt"]["kind"] == "retro_decision"
    assert result is not None and result["status"] == "done", result
    rec = next(r for r in result["results"].values() if r.get("guided"))
    assert rec["solved"] and rec["guided"]["decided_by"] == "chemist"
    assert answers == len(rec["guided"]["decisions"])  # one question per decision, each answered once
    assert all(d["decided_by"] == "chemist" and not d["fallback"] for d in rec["guided"]["decisions"])
