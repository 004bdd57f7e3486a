"""``run --retro-mode guided [--ask]``: options, bad input, the guided route and its decisions in the report."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from molx_agent.cli.main import app
from molx_agent.cli.run import check_retro_mode
from molx_agent.errors import ValidationError
from tests.agents.conftest import PARACETAMOL, make_toy_engine

runner = CliRunner()


def test_cli_guided_rules_mode_records_every_decision_in_the_report(monkeypatch, tmp_path):
    import molx_agent.retro.engine as engine_module

    monkeypatch.setattr(engine_module, "_DEFAULT", make_toy_engine(tmp_path))
    res = runner.invoke(app, ["run", "--query", f"Plan a synthesis of {PARACETAMOL}", "--retro-mode", "guided",
                              "--json", "--llm", "rules", "--output-dir", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    rec = next(r for r in data["results"].values() if r.get("guided"))
    assert rec["strategy"] == "guided" and rec["solved"]
    assert rec["guided"]["decided_by"] == "rules" and rec["guided"]["n_decisions"] == 4
    md = [p for p in data["report_paths"] if p.endswith(".md")]
    assert md, data["report_paths"]
    text = open(md[0], encoding="utf-8").read()
    assert "use_default → select_bond" in text and "use_default → recursion_decision" in text


def test_settings_retro_mode_guided_is_the_default_of_run(monkeypatch, tmp_path):
    import molx_agent.retro.engine as engine_module
    from molx_agent.config import reset_settings_cache

    monkeypatch.setattr(engine_module, "_DEFAULT", make_toy_engine(tmp_path))
    monkeypatch.setenv("MOLX_RETRO_MODE", "guided")
    reset_settings_cache()
    res = runner.invoke(app, ["run", "--query", f"Plan a synthesis of {PARACETAMOL}", "--json", "--llm", "rules"])
    assert res.exit_code == 0, res.output
    assert any(r.get("guided") for r in json.loads(res.stdout)["results"].values())


@pytest.mark.parametrize(("args", "message"), [
    (["--retro-mode", "sideways"], "--retro-mode must be one of auto, guided"),
    (["--ask"], "--ask answers the decisions of the guided retrosynthesis"),
    (["--retro-mode", "auto", "--ask"], "add --retro-mode guided"),
])
def test_cli_retro_mode_errors_exit_2(args, message):
    res = runner.invoke(app, ["run", "--query", f"Plan a synthesis of {PARACETAMOL}", *args, "--llm", "rules"])
    assert res.exit_code == 2, res.output
    assert message in res.stderr and "Traceback" not in res.output


def test_check_retro_mode_options():
    assert check_retro_mode(None, False) == {}
    assert check_retro_mode("guided", True) == {"retro_mode": "guided", "ask": True}
    assert check_retro_mode(None, True, settings_mode="guided") == {"ask": True}
    with pytest.raises(ValidationError):
        check_retro_mode("GUIDED", False)
