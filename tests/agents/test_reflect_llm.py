"""The LLM path of REFLECT and OPTIMIZE against a tiny OpenAI-compatible server on 127.0.0.1 (bounded request loop):
the prompts reach the model formatted, with the failed tasks' error text, and the LLM's re-plan is validated."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

from molx_agent.agents.base import BaseAgent
from molx_agent.config import get_settings
from molx_agent.errors import ExecutionError

MAX_REQUESTS = 30


class TinyOpenAI:
    """Answers at most ``MAX_REQUESTS`` chat-completion requests, then stops; records every request body."""

    def __init__(self, answer) -> None:
        self.bodies: list[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # silence
                pass

            def do_POST(self):  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                outer.bodies.append(body)
                content = answer(body["messages"][0]["content"], body["messages"][-1]["content"])
                data = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": body.get("model"),
                                   "choices": [{"index": 0, "finish_reason": "stop",
                                                "message": {"role": "assistant", "content": content}}],
                                   "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.server.timeout = 1  # an idle second ends one turn of the bounded loop
        self.closed = False
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        for _ in range(MAX_REQUESTS):  # bounded: the test can never hang on a server waiting forever
            if self.closed:
                return
            try:
                self.server.handle_request()
            except (OSError, ValueError):  # closed by the test
                return

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def prompts(self, marker: str) -> list[tuple[str, str]]:
        return [(b["messages"][0]["content"], b["messages"][-1]["content"]) for b in self.bodies
                if marker in b["messages"][0]["content"]]

    def close(self) -> None:
        self.closed = True
        self.server.server_close()
        self.thread.join(timeout=10)


class FlakyAnalysis(BaseAgent):
    name = "analysis"
    calls = 0

    def _run(self, task, state):
        FlakyAnalysis.calls += 1
        if FlakyAnalysis.calls == 1:
            raise ExecutionError("lab_server_busy", "the lab property server answered 503 Busy")
        return {"summary": f"properties of {task['inputs']['smiles'][0]} computed on attempt {FlakyAnalysis.calls}"}


def _answer(system: str, user: str) -> str:
    if "You classify requests" in system:
        return json.dumps({"intent": "molecule_query", "confidence": 0.9, "reasoning": ["stub"]})
    if "You plan a task DAG" in system:
        return json.dumps({"tasks": [{"id": "t1", "type": "analysis"}]})
    if "You review the outcome" in system:
        return json.dumps({"success": False, "should_replan": True, "issues": ["analysis failed: server busy"],
                           "summary": "retry the analysis"})
    if "Rewrite the remaining plan" in system:
        return json.dumps({"tasks": [{"id": "t1", "type": "analysis", "description": "analyse again",
                                      "inputs": {"options": {"deep_analysis": True}}}]})
    return "{}"


def test_reflect_and_optimize_prompts_are_formatted_and_carry_the_error_text():
    from molx_agent.agents.molx import MolxAgent

    FlakyAnalysis.calls = 0
    server = TinyOpenAI(_answer)
    try:
        settings = get_settings(openai_base_url=server.url, llm_provider="openai", llm_model="stub")
        agent = MolxAgent(settings=settings, workers={"analysis": FlakyAnalysis()}, tools=[])
        state = agent.invoke("What is the TPSA of CCO?")
    finally:
        server.close()
    reflect = server.prompts("You review the outcome")
    assert reflect, [b["messages"][0]["content"][:40] for b in server.bodies]
    system, user = reflect[0]
    assert "{{" not in system and "}}" not in system and '{"success": true|false' in system
    assert "round 0 of at most 3" in system
    assert "the lab property server answered 503 Busy" in user and "transient" in user
    optimize = server.prompts("Rewrite the remaining plan")
    assert optimize, "the LLM was asked to re-plan"
    system, _ = optimize[0]
    assert "{{" not in system and "503 Busy" in system and '"deep_analysis"' in system  # option keys offered
    # the LLM's (valid) re-plan ran: same task, new option, second attempt succeeded
    task = state["tasks"]["t1"]
    assert task["status"] == "done" and len(task["attempts"]) == 2
    assert task["attempts"][1]["options"]["deep_analysis"] is True
    assert state["plan_history"][1]["source"] == "replan-llm"
    assert "computed on attempt 2" in state["final_answer"]
    assert state["reflections"][0]["llm_issues"] == ["analysis failed: server busy"]
