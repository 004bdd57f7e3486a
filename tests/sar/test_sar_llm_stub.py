"""``molx-agent sar --llm openai`` through the one LLM client and the local stub server: structured column and
insight answers, and a slow endpoint costs one timeout for the whole run."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from molx_agent.cli.main import app
from tests.agents.conftest import SERIES_CSV
from tests.llm_stub import slow, structured, system_prompt

runner = CliRunner()


def _env(monkeypatch, server, timeout="5"):
    from molx_agent.config import reset_settings_cache

    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("MOLX_LLM_TIMEOUT", timeout)
    monkeypatch.setenv("MOLX_LLM_MAX_RETRIES", "0")
    reset_settings_cache()


def test_sar_columns_and_insights_by_structured_output(llm_stub, monkeypatch, tmp_path):
    def reply(body):
        user = body["messages"][-1]["content"]
        assert body["response_format"]["type"] == "json_schema"
        if "identify the columns" in user:
            return structured({"smiles_col": "smiles", "activity_col": "Ki (nM)", "id_col": "compound_id",
                               "units": "nM"})
        return structured({"insights": ["The most potent compounds share the pyrazolopyrimidine core."]})

    server = llm_stub(reply)
    _env(monkeypatch, server)
    res = runner.invoke(app, ["sar", str(SERIES_CSV), "--llm", "openai", "--json", "--output-dir",
                              str(tmp_path / "sar")])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["insights_source"] == "llm"
    assert doc["insights"] == ["The most potent compounds share the pyrazolopyrimidine core."]
    names = [r["response_format"]["json_schema"]["name"] for r in server.requests]
    assert names == ["LLMColumnAnswer", "LLMInsights"]
    assert all(system_prompt(r) for r in server.requests)


def test_sar_slow_endpoint_costs_one_timeout(llm_stub, monkeypatch, tmp_path):
    server = llm_stub([slow(structured({"smiles_col": "smiles"}), 30)] * 3)
    _env(monkeypatch, server, timeout="0.5")
    res = runner.invoke(app, ["sar", str(SERIES_CSV), "--llm", "openai", "--json", "--output-dir",
                              str(tmp_path / "sar")])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["insights_source"] == "rules"  # the insights were not asked of the endpoint that just timed out
    assert len(server.requests) == 1
