"""Fixtures of the web-server tests: an app on a toy retrosynthesis engine (no model files), a TestClient, and a
real uvicorn server on 127.0.0.1 that stops by itself."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from tests.agents.conftest import make_toy_engine, two_route_engine  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SERIES_CSV = REPO / "examples" / "series.csv"
ARTIFACTS = REPO / "tests" / "artifacts"


@pytest.fixture(autouse=True)
def _fresh_tool_registry():
    from molx_agent.agents.modules.tools import ToolRegistry

    ToolRegistry.reset()
    yield
    ToolRegistry.reset()


def toy_agent_factory(tmp_path: Path, max_searches: int = 2) -> Callable[[Any, Any], Any]:
    def build(molx: Any, checkpointer: Any) -> Any:
        from molx_agent.agents.molx import MolxAgent
        from molx_agent.server.runner import BoundedSearches

        return MolxAgent(llm=None, settings=molx, checkpointer=checkpointer, search_workers=1,
                         engine=BoundedSearches(make_toy_engine(tmp_path), max_searches))

    return build


def fake_agent_factory(molx: Any, checkpointer: Any) -> Any:
    from tests.server.fake_agent import FakeContractAgent

    return FakeContractAgent(checkpointer)


@pytest.fixture
def make_app(tmp_path) -> Callable[..., Any]:
    """``make_app(api_key=None, agent="toy"|"fake"|factory, **settings)`` -> the FastAPI app."""

    def make(api_key: str | None = None, agent: Any = "toy", **kwargs: Any) -> Any:
        from molx_agent.config import get_settings
        from molx_agent.server.app import ServerSettings, create_app

        factory = {"toy": toy_agent_factory(tmp_path), "fake": fake_agent_factory}.get(agent, agent) \
            if isinstance(agent, str) else agent
        settings = ServerSettings(api_key=api_key, molx=get_settings(), **kwargs)
        return create_app(settings, agent_factory=factory)

    return make


@pytest.fixture
def client(make_app) -> Iterator[Any]:
    from fastapi.testclient import TestClient

    with TestClient(make_app(), raise_server_exceptions=False) as c:
        yield c


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    """uvicorn serving ``app`` on 127.0.0.1 in a thread; ``stop()`` (or the fixture) ends it."""

    def __init__(self, app: Any) -> None:
        import uvicorn

        self.port = free_port()
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning",
                                                    lifespan="on", timeout_graceful_shutdown=2))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.05)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)


@pytest.fixture
def live_server(make_app) -> Iterator[Callable[..., LiveServer]]:
    servers: list[LiveServer] = []

    def start(**kwargs: Any) -> LiveServer:
        s = LiveServer(make_app(**kwargs))
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.stop()


def sse_events(text: str) -> list[dict[str, Any]]:
    """The JSON ``data`` of each Server-Sent Event in ``text``."""
    import json

    out = []
    for block in text.split("\n\n"):
        data = "\n".join(line[5:].lstrip() for line in block.splitlines() if line.startswith("data:"))
        if data:
            out.append(json.loads(data))
    return out



def two_route_agent_factory(tmp_path: Path) -> Callable[[Any, Any], Any]:
    def build(molx: Any, checkpointer: Any) -> Any:
        from molx_agent.agents.molx import MolxAgent
        from molx_agent.server.runner import BoundedSearches

        return MolxAgent(llm=None, settings=molx, checkpointer=checkpointer, search_workers=1,
                         engine=BoundedSearches(two_route_engine(tmp_path), 2))

    return build
