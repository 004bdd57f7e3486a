"""``molx-agent chat``: run_chat with scripted lines and the CLI with piped stdin."""

from __future__ import annotations

from typer.testing import CliRunner

from molx_agent.cli.chat import run_chat
from molx_agent.cli.main import app

runner = CliRunner()


def test_run_chat_commands():
    out: list[str] = []
    err: list[str] = []
    lines = ["MW of aspirin", "/history", "/bogus", "", "/clear", "/history", "/exit", "never sent"]
    result = run_chat("c1", lines=lines, out=out.append, err=err.append, llm="rules", interactive=False)
    assert result == {"session_id": "c1", "turns": 1, "errors": 1}
    assert "180.16" in out[0]
    assert out[1] == "you> MW of aspirin" and out[2].startswith("molx> ")
    assert "Session cleared." in out and "(no messages yet)" in out
    assert any("Unknown command" in e for e in err)


def test_cli_chat_with_piped_stdin_resumes_session():
    res = runner.invoke(app, ["chat", "--session", "piped", "--create", "--llm", "rules"],
                        input="What is the logP of ibuprofen?\n")
    assert res.exit_code == 0, res.output
    assert "3.07" in res.stdout
    res = runner.invoke(app, ["chat", "--session", "piped", "--llm", "rules"], input="/history\n/exit\n")
    assert "you> What is the logP of ibuprofen?" in res.stdout


def test_cli_chat_unknown_session_is_an_error_not_a_new_session():
    res = runner.invoke(app, ["chat", "--session", "nosuch", "--llm", "rules"], input="MW of aspirin\n")
    assert res.exit_code == 2 and "no chat session 'nosuch'" in res.stderr and "--create" in res.stderr
    assert "180.16" not in res.stdout  # nothing was answered in a silently created session


def test_cli_chat_bad_options():
    assert runner.invoke(app, ["chat", "--llm", "nope"]).exit_code == 2
    assert runner.invoke(app, ["chat", "--session", " "]).exit_code == 2


def test_cli_chat_with_unusable_molx_home_is_a_clear_error(tmp_path, monkeypatch):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("MOLX_HOME", str(blocker))
    res = runner.invoke(app, ["chat", "--llm", "rules"], input="MW of aspirin\n")
    assert res.exit_code == 2
    assert "cannot open the chat database" in res.stderr and "MOLX_HOME" in res.stderr
    assert "Traceback" not in res.output


def test_cli_chat_sar_then_follow_up_questions(monkeypatch):
    """The reported crash: a SAR turn on a file, then follow-up questions, through the real `molx-agent chat`."""
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    monkeypatch.chdir(repo)  # the question names examples/series.csv relative to the repository
    text = ("What is the logP of ibuprofen?\nAnalyse the SAR of examples/series.csv\n"
            "which compound is most potent?\n/history\n")
    res = runner.invoke(app, ["chat", "--session", "sar-chat", "--create", "--llm", "rules"], input=text)
    assert res.exit_code == 0, res.output
    assert "internal error" not in res.output and "Traceback" not in res.output
    answers = res.stdout.split("[Intent: ")
    assert "3.07" in answers[1]  # ibuprofen logP
    assert "SAR analysis done (60 compounds" in answers[2] and "sar_report.html" in answers[2]
    assert "Most potent: GSK3B-017" in answers[3]
    assert "previous turn's SAR analysis, not recomputed" in answers[3]
    assert res.stdout.count("you> ") == 3  # /history lists the three questions
