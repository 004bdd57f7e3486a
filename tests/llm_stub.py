"""A local OpenAI-compatible chat server for tests of the real ``ChatOpenAI`` (no network, 127.0.0.1, port 0).

``StubLLMServer(script)`` answers ``POST /v1/chat/completions`` from ``script``: a list of replies (used in order)
or a function ``body -> reply``.  A reply is one of

- ``text("...")``: an assistant message with this content (malformed JSON is just text);
- ``structured({...})``: the data as the request asked for it: a tool call when the request forces a tool
  (``tool_choice``, i.e. ``method="function_calling"``), else JSON content (``json_schema`` / ``json_mode`` / prompt);
- ``tool_call(name, {...})``: an assistant tool call (the tool agent);
- ``error(500)``: an HTTP error with an OpenAI-style error body;
- ``slow(reply, seconds)``: ``reply`` after a delay (a client timeout shorter than that gives up first).

The server takes at most ``max_requests`` requests (more get HTTP 503 and are counted in ``overflow``), records every
request body in ``requests``, and is stopped by the ``llm_stub`` fixture (or ``close()``).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass
class Reply:
    kind: str  # text | structured | tool_call | error
    content: Any = None
    name: str = ""
    status: int = 200
    delay: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


def text(content: str) -> Reply:
    return Reply("text", content)


def structured(data: Any) -> Reply:
    return Reply("structured", data)


def tool_call(name: str, arguments: dict[str, Any]) -> Reply:
    return Reply("tool_call", arguments, name=name)


def error(status: int = 500, message: str = "internal server error") -> Reply:
    return Reply("error", message, status=status)


def slow(reply: Reply | str, seconds: float) -> Reply:
    base = reply if isinstance(reply, Reply) else text(reply)
    return Reply(base.kind, base.content, name=base.name, status=base.status, delay=seconds, extra=base.extra)


def forced_tool(body: dict[str, Any]) -> str | None:
    """The tool name a request forces (``tool_choice``), if any."""
    choice = body.get("tool_choice")
    if isinstance(choice, dict):
        return (choice.get("function") or {}).get("name")
    if isinstance(choice, str) and choice not in ("auto", "none", "required"):
        return choice
    return None


def system_prompt(body: dict[str, Any]) -> str:
    for m in body.get("messages") or []:
        if m.get("role") in ("system", "developer"):
            content = m.get("content")
            return content if isinstance(content, str) else json.dumps(content)
    return ""


def last_user(body: dict[str, Any]) -> str:
    for m in reversed(body.get("messages") or []):
        if m.get("role") == "user":
            content = m.get("content")
            return content if isinstance(content, str) else json.dumps(content)
    return ""


def _completion(body: dict[str, Any], reply: Reply, n: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": None}
    finish = "stop"
    tool = forced_tool(body) if reply.kind == "structured" else None
    if reply.kind == "tool_call" or tool:
        message["tool_calls"] = [{"id": f"call_{n}", "type": "function",
                                  "function": {"name": reply.name or tool,
                                               "arguments": json.dumps(reply.content)}}]
        finish = "tool_calls"
    elif reply.kind == "structured":
        message["content"] = json.dumps(reply.content, ensure_ascii=False)
    else:
        message["content"] = str(reply.content)
    return {"id": f"chatcmpl-stub-{n}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "stub"), "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}}


class StubLLMServer:
    """See the module docstring."""

    def __init__(self, script: list[Reply | str] | Callable[[dict[str, Any]], Reply | str],
                 max_requests: int = 50) -> None:
        self.script = script if callable(script) else list(script)
        self.max_requests = max_requests
        self.requests: list[dict[str, Any]] = []
        self.overflow = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # silence
                pass

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length) if length else b"{}"
                body = json.loads(raw or b"{}")
                if not self.path.endswith("/chat/completions"):
                    self._send(404, {"error": {"message": "not found", "type": "invalid_request_error"}})
                    return
                with stub._lock:
                    if len(stub.requests) >= stub.max_requests:
                        stub.overflow += 1
                        reply: Reply | None = None
                    else:
                        stub.requests.append(body)
                        n = len(stub.requests)
                        if callable(stub.script):
                            got = stub.script(body)
                        else:
                            got = stub.script.pop(0) if stub.script else error(503, "script exhausted")
                        reply = got if isinstance(got, Reply) else text(str(got))
                if reply is None:
                    self._send(503, {"error": {"message": "request limit reached", "type": "server_error"}})
                    return
                if reply.delay:
                    stub._stopping.wait(reply.delay)
                if reply.kind == "error":
                    self._send(reply.status, {"error": {"message": reply.content, "type": "server_error",
                                                        "code": None, "param": None}})
                    return
                self._send(200, _completion(body, reply, n))

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def system_prompts(self) -> list[str]:
        return [system_prompt(r) for r in self.requests]

    def close(self) -> None:
        self._stopping.set()
        self.server.shutdown()
        self.server.server_close()


def stub_settings(server: StubLLMServer, **overrides: Any) -> Any:
    """Settings pointing the real client at ``server`` (fast timeout, no retry unless overridden)."""
    from molx_agent.config import get_settings

    values: dict[str, Any] = {"openai_base_url": server.base_url, "llm_provider": "openai", "llm_timeout": 5.0,
                              "llm_max_retries": 0, "llm_model": "stub-model"}
    values.update(overrides)
    return get_settings(**values)


@pytest.fixture
def llm_stub():
    """``start(script, max_requests=50) -> StubLLMServer``; every server is stopped after the test, and the module's
    backoff memory is cleared so one test's failed endpoint does not silence the next."""
    from molx_agent.agents.modules import llm as llm_module

    servers: list[StubLLMServer] = []

    def start(script: Any, max_requests: int = 50) -> StubLLMServer:
        s = StubLLMServer(script, max_requests)
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.close()
    llm_module._failed_at.clear()
    llm_module._no_structured.clear()


__all__ = ["StubLLMServer", "Reply", "text", "structured", "tool_call", "error", "slow", "forced_tool",
           "system_prompt", "last_user", "stub_settings", "llm_stub"]
