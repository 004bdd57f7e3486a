"""LangGraph Studio: langgraph.json, the graph factory, and `langgraph dev` answering over its HTTP API offline."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
STUDIO_MISSING = any(importlib.util.find_spec(m) is None
                     for m in ("langgraph_cli", "langgraph_api", "langgraph_runtime_inmem"))
#: Environment that keeps `langgraph dev` off the network: no CLI analytics, no LangSmith tracing, no license key.
OFFLINE_ENV = {"LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGSMITH_TRACING": "false", "LANGCHAIN_TRACING_V2": "false",
               "MOLX_LLM_PROVIDER": "rules"}


def test_langgraph_json_points_at_the_graph_factory():
    config = json.loads((REPO / "langgraph.json").read_text())
    assert config["dependencies"] == ["."]
    module, _, name = config["graphs"]["molx"].partition(":")  # a module path: works from any folder
    assert (REPO / (module.replace(".", "/") + ".py")).is_file() and name == "make_graph"
    from molx_agent.agents.studio import make_graph

    graph = make_graph()
    assert graph.checkpointer is None  # the server persists threads itself
    assert {"intake", "classify", "approve_plan", "finalize"} <= set(graph.get_graph().nodes)


def test_studio_graph_takes_a_message_or_a_user_query_and_starts_each_turn_afresh():
    from langchain_core.messages import AIMessage
    from langgraph.checkpoint.memory import InMemorySaver

    from molx_agent.agents.modules.graph import build_graph
    from molx_agent.agents.molx import MolxAgent

    graph = build_graph(MolxAgent(llm=None).nodes, checkpointer=InMemorySaver(), intake=True)
    cfg = {"configurable": {"thread_id": "studio"}}
    first = graph.invoke({"messages": [{"role": "user", "content": "What is the molecular weight of aspirin?"}]}, cfg)
    assert "180.16" in first["final_answer"] and first["user_query"].startswith("What is the molecular")
    second = graph.invoke({"messages": [{"role": "user", "content": "What is the logP of caffeine?"}]}, cfg)
    assert "caffeine" in second["final_answer"].lower() and "aspirin" not in second["final_answer"]
    assert [type(m) for m in second["messages"]].count(AIMessage) == 2 and list(second["tasks"]) == ["t1"]
    third = graph.invoke({"user_query": "What is the molecular weight of paracetamol?"}, cfg)
    assert "151.16" in third["final_answer"] and third["messages"][-2].content.endswith("paracetamol?")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _request(url: str, body: dict | None = None, timeout: float = 120) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return json.loads(resp.read() or b"{}")


@pytest.mark.skipif(STUDIO_MISSING, reason="the studio extra is not installed (uv sync --extra studio)")
def test_langgraph_dev_answers_a_molecule_question_over_http(tmp_path):
    port = _free_port()
    env = {**os.environ, **OFFLINE_ENV, "MOLX_HOME": str(tmp_path / "home"), "MOLX_OUTPUT_DIR": str(tmp_path / "out")}
    for var in ("LANGSMITH_API_KEY", "LANGCHAIN_API_KEY", "LANGGRAPH_CLOUD_LICENSE_KEY", "LANGSMITH_CONTROL_PLANE_API_KEY"):
        env.pop(var, None)
    exe = Path(sys.executable).parent / "langgraph"
    log = (tmp_path / "server.log").open("w")
    server = subprocess.Popen([str(exe), "dev", "--config", str(REPO / "langgraph.json"), "--host", "127.0.0.1",
                               "--port", str(port), "--no-browser", "--no-reload"],
                              cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                _request(f"{base}/ok", timeout=5)
                break
            except (urllib.error.URLError, ConnectionError, OSError):
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"langgraph dev did not start:\n{(tmp_path / 'server.log').read_text()[-3000:]}")
                time.sleep(0.5)
        out = _request(f"{base}/runs/wait", {"assistant_id": "molx", "input": {
            "messages": [{"role": "user", "content": "What is the molecular weight of aspirin?"}]}})
        assert out["intent"] == "molecule_query" and "180.16" in out["final_answer"]
        # a chemist in the loop over the API: the run stops at the plan approval, Command(resume=...) goes on
        thread = _request(f"{base}/threads", {})["thread_id"]
        stopped = _request(f"{base}/threads/{thread}/runs/wait", {"assistant_id": "molx", "input": {
            "user_query": "What is the molecular weight of caffeine?", "options": {"confirm_plan": True}}})
        assert stopped["__interrupt__"][0]["value"]["kind"] == "plan_approval"
        done = _request(f"{base}/threads/{thread}/runs/wait", {"assistant_id": "molx",
                                                                "command": {"resume": {"approve": True}}})
        assert "194.19" in done["final_answer"]
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        log.close()
    assert (tmp_path / ".langgraph_api").is_dir()  # the server's files went under its working folder
