"""``molx-agent run``: run_query and the CLI, including bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from molx_agent.cli.main import app
from molx_agent.cli.run import check_data_files, exit_code_for, run_query
from molx_agent.errors import DataError, ValidationError
from tests.agents.conftest import make_toy_engine

runner = CliRunner()


@pytest.fixture
def toy_engine(tmp_path):
    return make_toy_engine(tmp_path)


def test_run_query_english():
    result = run_query("What is the molecular weight and logP of aspirin?", llm="rules")
    assert set(result) >= {"intent", "intent_confidence", "tasks", "results", "final_answer", "report_paths", "errors"}
    assert result["intent"] == "molecule_query" and "180.16" in result["final_answer"]
    assert exit_code_for(result) == 0


def test_run_query_rejects_bad_input(tmp_path):
    with pytest.raises(ValidationError):
        run_query("  ")
    with pytest.raises(ValidationError):
        run_query("MW of aspirin", llm="gpt5")
    with pytest.raises(DataError) as info:
        check_data_files([str(tmp_path / "missing.csv")])
    assert info.value.code == "file_not_found"
    (tmp_path / "notes.pdf").write_text("x")
    with pytest.raises(DataError) as info:
        check_data_files([str(tmp_path / "notes.pdf")])
    assert info.value.code == "unsupported_file"
    with pytest.raises(DataError):
        check_data_files([str(tmp_path)])


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read any file")
def test_unreadable_data_file(tmp_path):
    f = tmp_path / "locked.csv"
    f.write_text("smiles\nCCO\n")
    f.chmod(0)
    with pytest.raises(DataError) as info:
        check_data_files([str(f)])
    assert info.value.code == "unreadable_file"


def test_cli_json_output():
    res = runner.invoke(app, ["run", "--query", "阿司匹林的分子量是多少?", "--json", "--llm", "rules"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["intent"] == "molecule_query" and data["language"] == "zh"
    assert data["results"]["t1"]["molecules"][0]["properties"]["molecular_weight"] == 180.16
    assert "分子量: 180.16" in data["final_answer"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "--query", ""], "query is empty"),
        (["run", "--query", "SAR", "--data", "/no/such/file.csv"], "not found"),
        (["run", "--query", "SAR", "--data", "pyproject.toml"], "unsupported data file type"),
        (["run", "--query", "x", "--llm", "banana"], "--llm"),
    ],
)
def test_cli_bad_input_exits_2_without_traceback(args, message):
    res = runner.invoke(app, args)
    assert res.exit_code == 2
    assert message in res.stderr and "Traceback" not in res.output


def test_cli_task_failed_on_bad_input_exits_2_and_other_failures_1():
    res = runner.invoke(app, ["run", "--query", "What is the TPSA of C1CC?", "--llm", "rules"])
    assert res.exit_code == 2 and "C1CC" in res.stdout  # the answer says why; bad input is exit 2 everywhere
    failed = {"tasks": {"t1": {"status": "failed"}}, "results": {"t1": {"error": {"code": "search_failed"}}}}
    assert exit_code_for(failed) == 1


def test_cli_openai_endpoint_down_is_a_clear_error(monkeypatch, unused_port_url):
    monkeypatch.setenv("OPENAI_BASE_URL", unused_port_url)
    res = runner.invoke(app, ["run", "--query", "MW of aspirin", "--llm", "openai"])
    assert res.exit_code == 2 and "not reachable" in res.stderr
    res = runner.invoke(app, ["run", "--query", "MW of aspirin", "--llm", "auto"])  # falls back to rules
    assert res.exit_code == 0 and "180.16" in res.stdout


@pytest.fixture
def unused_port_url():
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_output_dir_is_created(tmp_path):
    out = tmp_path / "deep" / "reports"
    res = runner.invoke(app, ["run", "--query", "MW of aspirin", "--output-dir", str(out), "--llm", "rules"])
    assert res.exit_code == 0 and out.is_dir()


def test_console_script_subprocess():
    res = subprocess.run([sys.executable, "-m", "molx_agent.cli.main", "run", "--query",
                          "What is the molecular weight and logP of aspirin?", "--llm", "rules"],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "180.16" in res.stdout and "1.31" in res.stdout


def test_help_imports_no_heavy_library():
    code = ("import sys, molx_agent.cli.main\n"
            "heavy = ('langchain', 'langchain_core', 'langgraph', 'rdkit', 'pandas', 'openai', 'mcp')\n"
            "print(','.join(sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in heavy})))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"--help imports {out.stdout.strip()}"


@pytest.mark.parametrize(("env", "raw"), [("MAX_ITERATIONS", "zero"), ("MOLX_LLM_PROVIDER", "bogus")])
def test_cli_invalid_setting_is_a_clear_error(monkeypatch, env, raw):
    monkeypatch.setenv(env, raw)
    for args in (["run", "--query", "MW of aspirin"], ["chat"]):
        res = runner.invoke(app, args, input="")
        assert res.exit_code == 2, res.output
        assert env in res.stderr and "internal error" not in res.stderr and "Traceback" not in res.output


def test_reports_go_to_the_output_dir(tmp_path, toy_engine):
    from pathlib import Path

    out = tmp_path / "my_reports"
    result = run_query("Plan a synthesis of paracetamol", output_dir=out, llm="rules", engine=toy_engine)
    assert result["intent"] == "retrosynthesis" and result["report_paths"]
    for p in result["report_paths"]:
        assert Path(p).resolve().is_relative_to(out.resolve()) and Path(p).is_file(), p


def test_crashing_worker_gives_a_clear_failure_and_no_traceback_on_stderr():
    code = (
        "import sys\n"
        "from molx_agent.agents import analysis\n"
        "def boom(self, task, state):\n"
        "    raise RuntimeError('kaboom')\n"
        "analysis.AnalysisAgent._run = boom\n"
        "from molx_agent.cli.main import main\n"
        "sys.argv = ['molx-agent', 'run', '--query', 'MW of aspirin', '--llm', 'rules']\n"
        "main()\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("MOLX_DEBUG", "MOLX_LOG_LEVEL")}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert res.returncode == 1
    assert "RuntimeError: kaboom" in res.stdout  # the answer says which task failed and why
    assert "Traceback" not in res.stderr and "worker analysis crashed" in res.stderr


def test_bad_log_level_is_a_warning_not_a_crash():
    env = {**os.environ, "MOLX_LOG_LEVEL": "loud"}
    res = subprocess.run([sys.executable, "-m", "molx_agent.cli.main", "version"], capture_output=True, text=True,
                         timeout=60, env=env)
    assert res.returncode == 0 and "molx-agent" in res.stdout
    assert "MOLX_LOG_LEVEL" in res.stderr and "Traceback" not in res.stderr


def test_cli_json_shows_plan_history_reflection_and_attempts(monkeypatch, toy_engine):
    """`run --search-time 2 --json` on an unsolvable natural product (toy engine): the re-plans are visible."""
    import molx_agent.retro.engine as engine_module
    from tests.agents.conftest import STRYCHNINE

    monkeypatch.setattr(engine_module, "_DEFAULT", toy_engine)  # the CLI's engine for this process
    res = runner.invoke(app, ["run", "--query", f"Plan a synthesis of {STRYCHNINE}", "--search-time", "2", "--json",
                              "--llm", "rules"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["thread_id"] and data["iterations"] >= 1
    assert len(data["plan_history"]) == data["iterations"] + 1
    assert all("inputs" in t for p in data["plan_history"] for t in p["tasks"])
    assert data["plan_history"][0]["tasks"][1]["inputs"]["options"]["time_limit"] == 2.0
    assert data["reflection"][0]["issues"] and data["reflection"][0]["actions"][0]["strategy"] == "wider_longer"
    attempts = data["tasks"]["t2"]["attempts"]
    assert [a["options"].get("strategy") for a in attempts][:2] == [None, "wider_longer"]
    assert "What was tried" in data["final_answer"]
    # the run was checkpointed: --resume on a finished run answers from its checkpoint
    again = runner.invoke(app, ["run", "--resume", data["thread_id"], "--json", "--llm", "rules"])
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["final_answer"] == data["final_answer"]


@pytest.mark.parametrize(("args", "message"), [
    (["run", "--query", "MW of aspirin", "--search-time", "0"], "--search-time must be a positive number"),
    (["run", "--query", "MW of aspirin", "--search-time", "-3"], "--search-time must be a positive number"),
    (["run", "--resume", "no-such-run"], "no run is stored under thread id 'no-such-run'"),
    (["run"], "give --query"),
])
def test_cli_run_option_errors_exit_2(args, message):
    res = runner.invoke(app, [*args, "--llm", "rules"])
    assert res.exit_code == 2, res.output
    assert message in res.stderr and "Traceback" not in res.output


def test_run_query_bad_file_is_attempted_once(tmp_path):
    bad = tmp_path / "no_structures.csv"
    bad.write_text("name,IC50\nA,1\nB,2\n", encoding="utf-8")
    doc = run_query("Analyse the SAR", [str(bad)], llm="rules")
    assert exit_code_for(doc) == 1
    assert [len(t.get("attempts", [])) for t in doc["tasks"].values()] == [1, 0, 0]
    assert doc["iterations"] == 0 and len(doc["plan_history"]) == 1
    assert doc["reflection"][0]["issues"][0]["class"] == "bad_input"
