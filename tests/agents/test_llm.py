"""LLM path: JSON helper, provider selection, scripted fake model and a real ChatOpenAI against a stub server."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel

from molx_agent.agents.modules.llm import get_llm, invoke_json, parse_json_response, strip_fences
from molx_agent.config import get_settings
from molx_agent.errors import ConfigError


def system_text(messages):
    return str(messages[0].content) if messages else ""


class _Answer(BaseModel):
    intent: str
    confidence: float


@pytest.mark.parametrize(
    "text",
    [
        '{"intent": "molecule_query", "confidence": 0.8}',
        '```json\n{"intent": "molecule_query", "confidence": 0.8}\n```',
        'Sure! Here it is:\n```\n{"intent": "molecule_query", "confidence": 0.8}\n```\nHope it helps.',
        'The answer is {"intent": "molecule_query", "confidence": 0.8} as requested.',
    ],
)
def test_parse_json_response_strips_fences_and_prose(text):
    parsed = parse_json_response(text, _Answer)
    assert parsed == _Answer(intent="molecule_query", confidence=0.8)


@pytest.mark.parametrize("text", ["not json", '{"intent": 3}', "```json\n{broken\n```", ""])
def test_parse_json_response_rejects_invalid(text):
    assert parse_json_response(text, _Answer) is None


def test_strip_fences_keeps_plain_json():
    assert strip_fences('[1, 2]') == "[1, 2]"


def test_get_llm_rules_and_auto_without_endpoint_are_none():
    assert get_llm(get_settings(llm_provider="rules")) is None
    assert get_llm(get_settings()) is None  # auto, no key, no base URL


def test_auto_falls_back_to_rules_when_endpoint_down(unused_local_url, caplog):
    settings = get_settings(openai_base_url=unused_local_url, llm_provider="auto")
    with caplog.at_level("WARNING"):
        assert get_llm(settings) is None
    assert "not reachable" in caplog.text and "rules" in caplog.text


def test_explicit_openai_with_endpoint_down_is_a_clear_error(unused_local_url):
    settings = get_settings(openai_base_url=unused_local_url, llm_provider="openai")
    with pytest.raises(ConfigError) as info:
        get_llm(settings)
    assert info.value.code == "llm_unreachable"
    assert unused_local_url in str(info.value)


def test_invoke_json_returns_none_on_model_exception(scripted_llm):
    def boom(messages):
        raise TimeoutError("slow")

    assert invoke_json(scripted_llm(boom), "sys", "user", _Answer) is None


def _scripted_responder(messages):
    system = system_text(messages)
    if "You classify requests" in system:
        return '```json\n{"intent": "molecule_query", "confidence": 0.77, "reasoning": ["asks for MW"]}\n```'
    if "You plan a task DAG" in system:
        return json.dumps({"tasks": [{"id": "a1", "type": "analysis", "description": "LLM planned analysis",
                                      "depends_on": []}]})
    if "You review the outcome" in system:
        return json.dumps({"success": True, "should_replan": False, "issues": [], "summary": "All good."})
    if "You write the final answer" in system:
        return json.dumps({"summary": "Aspirin weighs 180.16 g/mol."})
    raise AssertionError(system)


def test_scripted_model_drives_classify_plan_reflect(scripted_llm, aspirin):
    from molx_agent.agents.molx import MolxAgent

    llm = scripted_llm(_scripted_responder)
    state = MolxAgent(llm=llm).invoke(f"What is the MW of {aspirin}?")
    assert state["intent"] == "molecule_query" and state["intent_confidence"] == 0.77
    assert list(state["tasks"]) == ["a1"] and state["tasks"]["a1"]["description"] == "LLM planned analysis"
    assert state["tasks"]["a1"]["inputs"]["smiles"] == [aspirin]  # entities always come from rules
    assert state["reflection"]["source"] == "rules+llm" and state["reflection"]["llm_summary"] == "All good."
    assert "180.16" in state["final_answer"]
    assert state["final_answer"].startswith("Aspirin weighs 180.16 g/mol.")  # the grounded LLM summary on top
    assert len(llm.calls) == 4  # classify, plan, reflect, final summary


def test_invalid_llm_plan_is_replaced_by_template(scripted_llm, aspirin):
    from molx_agent.agents.molx import MolxAgent

    def responder(messages):
        system = system_text(messages)
        if "You classify requests" in system:
            return '{"intent": "molecule_query", "confidence": 0.9, "reasoning": []}'
        if "You plan a task DAG" in system:  # unknown worker and a cycle
            return json.dumps({"tasks": [{"id": "x", "type": "quantum_oracle", "depends_on": ["y"]},
                                         {"id": "y", "type": "analysis", "depends_on": ["x"]}]})
        return "I think it went fine"  # invalid reflection JSON -> rules reflection

    state = MolxAgent(llm=scripted_llm(responder)).invoke(f"MW of {aspirin}")
    assert [t["type"] for t in state["tasks"].values()] == ["analysis"] and "t1" in state["tasks"]
    assert state["reflection"]["source"] == "rules"
    assert "180.16" in state["final_answer"]


def test_llm_cannot_route_fileless_query_to_sar(scripted_llm):
    from molx_agent.agents.intent_classifier import IntentClassifierAgent

    llm = scripted_llm(['{"intent": "sar_analysis", "confidence": 0.99, "reasoning": []}'])
    result = IntentClassifierAgent(llm=llm).classify("What is the logP of aspirin?")
    assert result.intent == "molecule_query" and result.source == "rules"


def _stub_responder(body):
    system = body["messages"][0]["content"]
    if "You classify requests" in system:
        return json.dumps({"intent": "molecule_query", "confidence": 0.66, "reasoning": ["stub says so"]})
    if "You plan a task DAG" in system:
        return "```json\n" + json.dumps({"tasks": [{"id": "s1", "type": "analysis", "depends_on": []}]}) + "\n```"
    if "You review the outcome" in system:
        return json.dumps({"success": True, "should_replan": False, "issues": ["none"], "summary": "stub reviewed"})
    return "{}"


def test_real_chatopenai_against_local_stub_server(stub_openai, paracetamol):
    from molx_agent.agents.molx import MolxAgent

    server = stub_openai(_stub_responder)
    settings = get_settings(openai_base_url=server.base_url, llm_provider="openai", llm_model="stub-model")
    agent = MolxAgent(settings=settings)
    assert type(agent.llm).__name__ == "ChatOpenAI"
    state = agent.invoke(f"What is the TPSA of {paracetamol}?")
    prompts = server.system_prompts()
    assert any("You classify requests" in p for p in prompts)
    assert any("You plan a task DAG" in p for p in prompts)
    assert any("You review the outcome" in p for p in prompts)
    assert all(r["model"] == "stub-model" for r in server.requests)
    assert state["intent_confidence"] == 0.66 and list(state["tasks"]) == ["s1"]
    assert state["reflection"]["llm_summary"] == "stub reviewed"
    assert "49.33" in state["final_answer"]  # paracetamol TPSA from RDKit
    import tiktoken.registry

    assert tiktoken.registry.ENCODINGS == {}  # no tokenizer was loaded (it would be downloaded)


def test_slow_endpoint_times_out_and_rules_take_over(stub_openai, aspirin):
    from molx_agent.agents.molx import MolxAgent

    server = stub_openai(_stub_responder, delay=3.0)
    settings = get_settings(openai_base_url=server.base_url, llm_provider="openai", llm_timeout=0.5)
    state = MolxAgent(settings=settings).invoke(f"MW of {aspirin}")
    assert state["intent"] == "molecule_query" and state["intent_confidence"] != 0.66
    assert list(state["tasks"]) == ["t1"]
    assert "180.16" in state["final_answer"]
    warnings = [e["message"] for e in state["errors"] if e["code"] == "warning"]
    assert any("LLM endpoint failed" in w and "Timeout" in w and "rules" in w for w in warnings), warnings


def test_cli_with_a_slow_endpoint_warns_and_answers_offline(stub_openai, monkeypatch):
    from typer.testing import CliRunner

    from molx_agent.cli.main import app

    server = stub_openai(_stub_responder, delay=3.0)
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("MOLX_LLM_TIMEOUT", "0.5")
    res = CliRunner().invoke(app, ["run", "--query", "What is the molecular weight of aspirin?"])
    assert res.exit_code == 0, res.output
    assert "180.16" in res.stdout and "Traceback" not in res.output
    assert "Warning: the LLM endpoint failed" in res.stderr and "Timeout" in res.stderr


def test_tracing_stays_off(monkeypatch):
    monkeypatch.delenv("LANGCHAIN_TRACING_V2", raising=False)
    monkeypatch.delenv("LANGSMITH_TRACING", raising=False)
    get_llm(get_settings(llm_provider="rules"))
    import os

    assert os.environ["LANGCHAIN_TRACING_V2"] == "false" and os.environ["LANGSMITH_TRACING"] == "false"


def test_failed_llm_is_not_asked_again_within_the_backoff(scripted_llm):
    calls = []

    def down(messages):
        calls.append(1)
        raise ConnectionError("down")

    llm = scripted_llm(down)
    assert invoke_json(llm, "s", "u", _Answer) is None
    assert invoke_json(llm, "s", "u", _Answer) is None
    assert len(calls) == 1


def test_explicit_openai_without_key_or_url_is_a_clear_error():
    with pytest.raises(ConfigError) as info:
        get_llm(get_settings(llm_provider="openai"))
    assert info.value.code == "llm_not_configured"
