"""The one LLM client against the real ``ChatOpenAI`` and a local OpenAI-compatible stub server."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel

from molx_agent.agents.modules import llm as llm_module
from molx_agent.agents.modules.llm import (
    GuardedLLM,
    LLMUnavailable,
    get_llm,
    history_messages,
    invoke_structured,
    invoke_text,
    llm_failure,
)
from tests.llm_stub import error, forced_tool, slow, structured, stub_settings, text


class Verdict(BaseModel):
    intent: str
    confidence: float


def test_json_schema_structured_output_is_requested_and_validated(llm_stub):
    server = llm_stub([structured({"intent": "retrosynthesis", "confidence": 0.9})])
    llm = get_llm(stub_settings(server))
    got = invoke_structured(llm, "sys", "plan a route", Verdict, what="test")
    assert got == Verdict(intent="retrosynthesis", confidence=0.9)
    fmt = server.requests[0]["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "Verdict"
    assert set(fmt["json_schema"]["schema"]["properties"]) == {"intent", "confidence"}


def test_tool_calling_structured_output(llm_stub):
    server = llm_stub([structured({"intent": "sar_analysis", "confidence": 0.6})])
    llm = get_llm(stub_settings(server, llm_structured_output="function_calling"))
    got = invoke_structured(llm, "sys", "q", Verdict)
    assert got == Verdict(intent="sar_analysis", confidence=0.6)
    assert forced_tool(server.requests[0]) == "Verdict"
    assert "response_format" not in server.requests[0]


def test_json_mode_and_prompt_only(llm_stub):
    server = llm_stub([structured({"intent": "a", "confidence": 0.1}), text('```json\n{"intent": "b", '
                                                                           '"confidence": 0.2}\n```')])
    assert invoke_structured(get_llm(stub_settings(server, llm_structured_output="json_mode")), "s", "u",
                             Verdict).intent == "a"
    assert server.requests[0]["response_format"] == {"type": "json_object"}
    assert invoke_structured(get_llm(stub_settings(server, llm_structured_output="none")), "s", "u",
                             Verdict).intent == "b"
    assert "response_format" not in server.requests[1]


def test_schema_mismatch_and_malformed_json_fall_back_without_backoff(llm_stub):
    server = llm_stub([structured({"intent": "x"}), text("{'intent': broken"), structured({"intent": "ok",
                                                                                          "confidence": 1})])
    llm = get_llm(stub_settings(server))
    assert invoke_structured(llm, "s", "u", Verdict) is None  # confidence missing: pydantic rejects it
    assert invoke_structured(llm, "s", "u", Verdict) is None  # not JSON at all
    assert llm_failure(llm) is None  # a bad answer is not an endpoint failure: the next call is made
    assert invoke_structured(llm, "s", "u", Verdict).intent == "ok"


def test_endpoint_without_structured_output_is_asked_in_the_prompt(llm_stub):
    def script(body):
        if "response_format" in body:
            return error(400, "response_format is not supported by this server")
        return text('Here you go: {"intent": "molecule_query", "confidence": 0.5}')

    server = llm_stub(script)
    llm = get_llm(stub_settings(server))
    assert invoke_structured(llm, "s", "u", Verdict).intent == "molecule_query"
    assert invoke_structured(llm, "s", "u", Verdict).intent == "molecule_query"
    assert ["response_format" in r for r in server.requests] == [True, False, False]  # remembered
    assert llm_failure(llm) is None


def test_http_500_backs_off_for_every_caller(llm_stub):
    server = llm_stub([error(500), error(500)])
    llm = get_llm(stub_settings(server, llm_max_retries=1))
    assert invoke_structured(llm, "s", "u", Verdict) is None
    assert len(server.requests) == 2  # one retry (MOLX_LLM_MAX_RETRIES=1), then the rules path
    assert "500" in llm_failure(llm)
    assert invoke_structured(llm, "s", "u", Verdict) is None
    assert invoke_text(llm, "s", "u") is None
    with pytest.raises(LLMUnavailable):
        GuardedLLM(llm, "sar columns").invoke("which column holds SMILES?")
    assert len(server.requests) == 2  # nobody asked the failed endpoint again


def test_slow_reply_honours_the_timeout(llm_stub):
    server = llm_stub([slow(structured({"intent": "a", "confidence": 1}), 30)])
    llm = get_llm(stub_settings(server, llm_timeout=0.5))
    assert invoke_structured(llm, "s", "u", Verdict) is None
    assert "Timeout" in llm_failure(llm)
    assert invoke_text(llm, "s", "u") is None and len(server.requests) == 1


def test_guarded_llm_gives_library_code_structured_answers(llm_stub):
    server = llm_stub([structured({"intent": "a", "confidence": 0.3}), text("plain words")])
    guarded = GuardedLLM(get_llm(stub_settings(server)), "sar")
    assert guarded.ask_json("q", Verdict) == Verdict(intent="a", confidence=0.3)
    assert guarded.invoke("hello").content == "plain words"


def test_history_messages_keeps_the_last_turns_before_the_current_one():
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    msgs = [HumanMessage(content=f"q{i}") if i % 2 == 0 else AIMessage(content="a" * 5000) for i in range(10)]
    msgs.insert(3, ToolMessage(content="tool", tool_call_id="x"))
    msgs.append(HumanMessage(content="current"))
    hist = history_messages(msgs, turns=4)
    assert [type(m).__name__ for m in hist] == ["HumanMessage", "AIMessage", "HumanMessage", "AIMessage"]
    assert hist[0].content == "q6" and all("current" not in m.content for m in hist)
    assert len(hist[1].content) < 2000
    assert history_messages([HumanMessage(content="only")]) == []


def test_backoff_memory_is_per_model(llm_stub):
    server = llm_stub([error(500), structured({"intent": "b", "confidence": 0.5})])
    a = get_llm(stub_settings(server))
    b = get_llm(stub_settings(server))
    assert invoke_structured(a, "s", "u", Verdict) is None
    assert invoke_structured(b, "s", "u", Verdict).intent == "b"
    assert json.loads(json.dumps(llm_module.LLM_BACKOFF_S)) > 0
