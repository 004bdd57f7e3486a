"""``molx-agent serve``: the web app (HTTP API + a page at ``/``). Needs the ``server`` extra (FastAPI, uvicorn,
python-multipart); the agents layer never imports this package."""

from __future__ import annotations

from typing import Any


def create_app(settings: Any = None, agent_factory: Any = None) -> Any:
    """The FastAPI app (see :func:`molx_agent.server.app.create_app`)."""
    from molx_agent.server.app import create_app as _create_app

    return _create_app(settings, agent_factory)


__all__ = ["create_app"]
