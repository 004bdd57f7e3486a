"""``molx-agent doctor``."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from molx_agent.cli.doctor import run_doctor
from molx_agent.cli.main import app
from molx_agent.config import get_settings

runner = CliRunner()


def test_doctor_all_ok_offline():
    checks = {c.name: c for c in run_doctor()}
    assert {"python", "rdkit", "name_table", "langgraph", "llm", "mcp", "output_dir", "molx_home", "workers"} <= set(checks)
    assert checks["rdkit"].status == "ok" and "180.16" in checks["rdkit"].detail
    assert checks["llm"].status == "ok" and "rules" in checks["llm"].detail


def test_doctor_reports_unreachable_llm_and_bad_mcp_config(tmp_path):
    bad = tmp_path / "mcp.json"
    bad.write_text('{"servers": {"x": {"transport": "stdio"}}}')
    settings = get_settings(llm_provider="openai", openai_base_url="http://127.0.0.1:9/v1", mcp_servers_config=bad)
    checks = {c.name: c for c in run_doctor(settings)}
    assert checks["llm"].status == "fail" and "not reachable" in checks["llm"].detail
    assert checks["mcp"].status == "fail" and "command" in checks["mcp"].detail


def test_doctor_cli_json_and_exit_code(monkeypatch, tmp_path):
    res = runner.invoke(app, ["doctor", "--json"])
    assert res.exit_code == 0, res.output
    assert {c["name"] for c in json.loads(res.stdout)} >= {"rdkit", "llm"}
    monkeypatch.setenv("MOLX_LLM_PROVIDER", "openai")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    from molx_agent.config import reset_settings_cache

    reset_settings_cache()
    res = runner.invoke(app, ["doctor"])
    assert res.exit_code == 1 and "[FAIL] llm" in res.stdout
