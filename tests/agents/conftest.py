"""Fakes for the LLM path: a scripted chat model (with bind_tools) and a local OpenAI-compatible stub server."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult


class ScriptedChatModel(BaseChatModel):
    """Answers with a script: a list of replies (str or AIMessage) or a function of the messages."""

    script: Any = None
    calls: list[list[BaseMessage]] = []
    bound_tools: list[Any] = []

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        self.calls.append(list(messages))
        if callable(self.script):
            reply = self.script(messages)
        else:
            reply = self.script.pop(0)
        msg = reply if isinstance(reply, AIMessage) else AIMessage(content=str(reply))
        return ChatResult(generations=[ChatGeneration(message=msg)])

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:
        self.bound_tools = list(tools)
        return self


def scripted(script: Any) -> ScriptedChatModel:
    return ScriptedChatModel(script=script, calls=[], bound_tools=[])


def system_text(messages: list[BaseMessage]) -> str:
    return str(messages[0].content) if messages else ""


@pytest.fixture
def scripted_llm() -> Callable[[Any], ScriptedChatModel]:
    return scripted


class StubOpenAI:
    """A local OpenAI-compatible /v1/chat/completions server answering from ``responder(body) -> str``."""

    def __init__(self, responder: Callable[[dict[str, Any]], str], delay: float = 0.0) -> None:
        self.responder = responder
        self.delay = delay
        self.requests: list[dict[str, Any]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # silence
                pass

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                stub.requests.append(body)
                if not self.path.endswith("/chat/completions"):
                    self.send_response(404)
                    self.end_headers()
                    return
                if stub.delay:
                    time.sleep(stub.delay)
                content = stub.responder(body)
                payload = {
                    "id": "chatcmpl-stub", "object": "chat.completion", "created": 0, "model": body.get("model", "stub"),
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                 "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                }
                data = json.dumps(payload).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def system_prompts(self) -> list[str]:
        return [r["messages"][0]["content"] for r in self.requests if r.get("messages")]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def stub_openai():
    servers: list[StubOpenAI] = []

    def start(responder: Callable[[dict[str, Any]], str], delay: float = 0.0) -> StubOpenAI:
        s = StubOpenAI(responder, delay)
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.close()


@pytest.fixture
def unused_local_url() -> str:
    """An http URL on 127.0.0.1 where nothing listens."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


@pytest.fixture(autouse=True)
def _fresh_tool_registry():
    from molx_agent.agents.modules.tools import ToolRegistry

    ToolRegistry.reset()
    yield
    ToolRegistry.reset()


# -- a toy retrosynthesis engine (no model files, no ZINC): known reactions and a tiny verified stock ----------------
EXAMPLES = __import__("pathlib").Path(__file__).resolve().parents[2] / "examples"
SERIES_CSV = EXAMPLES / "series.csv"
PARACETAMOL = "CC(=O)Nc1ccc(O)cc1"
#: strychnine: the toy model knows no reaction making it or its fragments, so it is unsolvable
STRYCHNINE = "O=C1C[C@H]2OCC=C3CN4CC[C@@]56[C@@H]4C[C@H]3[C@H]2[C@H]5N1c1ccccc16"
# the three most potent compounds of examples/series.csv (pKi 8.0, ranked by LLE then LE)
GSK3B_017 = "COc1cccc(Nc2nccc(-c3cnn4ncccc34)n2)c1"
GSK3B_021 = "COc1cc(Nc2nccc(-c3cnn4ncccc34)n2)cc(OC)c1"
GSK3B_020 = "Fc1ccc(Nc2nccc(-c3cnn4ncccc34)n2)cc1F"
HALIDE = "Brc1nccc(-c2cnn3ncccc23)n1"  # the Buchwald-Hartwig partner of the strategic Ar-N bond


def two_route_engine(tmp_path):
    """Paracetamol by two one-step routes: acetic anhydride (the better, first) or acetyl chloride."""
    from molx_agent.retro.engine import RetroEngine
    from molx_agent.retro.stock import FileStock
    from molx_agent.retro.toy_model import DictSingleStepModel

    model = DictSingleStepModel({PARACETAMOL: [
        (["CC(=O)OC(C)=O", "Nc1ccc(O)cc1"], 0.6, "N-acetylation", "acylation"),
        (["CC(=O)Cl", "Nc1ccc(O)cc1"], 0.4, "N-acylation", "acylation")]})
    stock = tmp_path / "stock2.smi"
    stock.write_text("CC(=O)OC(C)=O\nNc1ccc(O)cc1\nCC(=O)Cl\n")
    return RetroEngine(model=model, stock=FileStock(stock))


def make_toy_engine(tmp_path):
    """Paracetamol in one step; GSK3B-017 sold as such; GSK3B-021 only through an analog shortcut (from the sold
    GSK3B-017); GSK3B-020 not in the model (found only by disconnecting its strategic Ar-N bond first); strychnine
    unsolvable."""
    from molx_agent.retro.engine import RetroEngine
    from molx_agent.retro.stock import FileStock
    from molx_agent.retro.toy_model import DictSingleStepModel

    model = DictSingleStepModel({
        PARACETAMOL: [(["CC(=O)OC(C)=O", "Nc1ccc(O)cc1"], 0.6, "N-acetylation", "acylation")],
        GSK3B_021: [([GSK3B_017, "CO"], 0.3, "C-H methoxylation", "functionalisation")],
    })
    stock = tmp_path / "toy_stock.smi"
    stock.write_text("\n".join(["CC(=O)OC(C)=O", "Nc1ccc(O)cc1", GSK3B_017, "CO", HALIDE,
                                "Nc1ccc(F)c(F)c1", "COc1cc(N)cc(OC)c1"]) + "\n")
    return RetroEngine(model=model, stock=FileStock(stock))


@pytest.fixture
def toy_engine(tmp_path):
    return make_toy_engine(tmp_path)
