"""LLM factory and JSON helpers.

``get_llm(settings)`` returns a ``ChatOpenAI`` (any OpenAI-compatible endpoint) or ``None`` for the
offline rules mode.  Every LLM answer the graph relies on goes through :func:`invoke_json`, which strips
markdown fences, validates the JSON against a pydantic model and returns ``None`` on any failure
(unreachable endpoint, timeout, invalid JSON, schema mismatch) so the caller falls back to its rules path.

Nothing here downloads anything: no tokenizer files are fetched (token counting is never called) and
LangSmith tracing stays off unless the user turns it on through the environment.
"""

from __future__ import annotations

import json
import logging
import os
import re
import socket
import time
from typing import Any, TypeVar
from urllib.parse import urlparse

from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from molx_agent.config import Settings, get_settings
from molx_agent.errors import ConfigError

logger = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)

DEFAULT_OPENAI_URL = "https://api.openai.com/v1"
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def disable_tracing_unless_requested() -> None:
    """Keep LangSmith tracing off unless the user explicitly enabled it."""
    for var in ("LANGCHAIN_TRACING_V2", "LANGSMITH_TRACING"):
        os.environ.setdefault(var, "false")


def endpoint_url(settings: Settings) -> str:
    return (settings.openai_base_url or DEFAULT_OPENAI_URL).rstrip("/")


def check_llm_endpoint(settings: Settings, timeout: float = 2.0) -> tuple[bool, str]:
    """Is the configured endpoint reachable (TCP connect)?  Returns ``(ok, message)``.

    A TCP connect is enough to tell "server down / no network" from "up"; it sends no request,
    so no key is spent and nothing is logged remotely.
    """
    url = endpoint_url(settings)
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        return False, f"OPENAI_BASE_URL is not an http(s) URL: {url!r}"
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        with socket.create_connection((parsed.hostname, port), timeout=timeout):
            pass
    except OSError as exc:
        return False, f"LLM endpoint {url} is not reachable ({exc.__class__.__name__}: {exc})"
    return True, f"LLM endpoint {url} is reachable"


def get_llm(
    settings: Settings | None = None,
    *,
    provider: str | None = None,
    check_endpoint: bool = True,
) -> Any | None:
    """A chat model for ``settings`` or ``None`` (rules mode).

    - ``rules``: ``None``.
    - ``openai``: a ``ChatOpenAI``; when ``check_endpoint`` and the endpoint is unreachable, raises
      :class:`ConfigError` (``llm_unreachable``) with a clear message.
    - ``auto``: openai when a key or base URL is configured and the endpoint answers; otherwise
      rules, with a warning saying why.
    """
    settings = settings or get_settings()
    disable_tracing_unless_requested()
    requested = provider or settings.llm_provider
    if requested not in ("auto", "openai", "rules"):
        raise ConfigError("invalid_llm_provider", f"unknown LLM provider {requested!r}", value=requested,
                          hint="use auto, openai or rules")
    if requested == "rules":
        return None
    if not (settings.openai_api_key or settings.openai_base_url):
        if requested == "auto":
            return None
        raise ConfigError("llm_not_configured", "MOLX_LLM_PROVIDER=openai but neither OPENAI_API_KEY nor "
                          "OPENAI_BASE_URL is set", hint="set one of them, or use --llm rules")
    if check_endpoint:
        ok, message = check_llm_endpoint(settings)
        if not ok:
            if requested == "auto":
                logger.warning("%s; falling back to the offline rules mode", message)
                return None
            raise ConfigError("llm_unreachable", message, value=endpoint_url(settings),
                              hint="start the server, fix OPENAI_BASE_URL, or use --llm rules")
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    return ChatOpenAI(
        model=settings.llm_model,
        temperature=settings.llm_temperature,
        api_key=SecretStr(settings.openai_api_key or "not-needed"),  # local OpenAI-compatible servers need none
        base_url=settings.openai_base_url,
        timeout=settings.llm_timeout,
        max_retries=1,
    )


def strip_fences(text: str) -> str:
    """The JSON inside a markdown fence if there is one, else the outermost ``{...}``/``[...]`` span."""
    text = (text or "").strip()
    fenced = _FENCE.search(text)
    if fenced:
        return fenced.group(1).strip()
    starts = [i for i in (text.find("{"), text.find("[")) if i != -1]
    if not starts:
        return text
    start = min(starts)
    end = max(text.rfind("}"), text.rfind("]"))
    return text[start : end + 1] if end > start else text


def parse_json_response(text: str, model: type[M]) -> M | None:
    """Parse and validate an LLM answer; ``None`` when it is not valid JSON for ``model``."""
    try:
        data = json.loads(strip_fences(text))
        return model.model_validate(data)
    except (json.JSONDecodeError, PydanticValidationError, TypeError, ValueError) as exc:
        logger.info("LLM answer rejected for %s: %s", model.__name__, str(exc)[:300])
        return None


def message_text(message: Any) -> str:
    """Plain text content of a chat message (handles list-of-blocks content)."""
    content = getattr(message, "content", message)
    if isinstance(content, list):
        return "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
    return str(content or "")


#: After a failed call (down, timeout, auth) the same model is not asked again for this many seconds, so a
#: dead or very slow endpoint costs one timeout per run instead of one per graph step.
LLM_BACKOFF_S = 120.0
_failed_at: dict[int, tuple[Any, float, str]] = {}


def llm_available(llm: Any) -> bool:
    """False while ``llm`` is backing off after a failed call."""
    entry = _failed_at.get(id(llm))
    if entry is None or entry[0] is not llm:
        return llm is not None
    if time.monotonic() - entry[1] > LLM_BACKOFF_S:
        _failed_at.pop(id(llm), None)
        return True
    return False


def llm_failure(llm: Any) -> str | None:
    """Why ``llm`` is backing off (``"APITimeoutError: Request timed out."``), or ``None`` when it is usable."""
    if llm is None or llm_available(llm):
        return None
    entry = _failed_at.get(id(llm))
    return entry[2] if entry is not None else None


def invoke_json(llm: Any, system: str, user: str, model: type[M], *, what: str = "answer") -> M | None:
    """Ask ``llm`` for JSON matching ``model``; ``None`` (caller uses rules) on any failure."""
    if llm is None:
        return None
    if not llm_available(llm):
        logger.info("LLM skipped for %s (failed recently); using the rules path", what)
        return None
    from langchain_core.messages import HumanMessage, SystemMessage

    try:
        reply = llm.invoke([SystemMessage(content=system), HumanMessage(content=user)])
    except Exception as exc:  # noqa: BLE001 - endpoint down, timeout, auth: fall back to rules
        reason = f"{type(exc).__name__}: {str(exc)[:200]}"
        _failed_at[id(llm)] = (llm, time.monotonic(), reason)
        logger.warning("LLM call for %s failed (%s); using the rules path (LLM paused for %.0f s)", what,
                       reason, LLM_BACKOFF_S)
        return None
    parsed = parse_json_response(message_text(reply), model)
    if parsed is None:
        logger.warning("LLM %s was not valid JSON for %s; using the rules path", what, model.__name__)
    return parsed


__all__ = [
    "get_llm",
    "check_llm_endpoint",
    "endpoint_url",
    "strip_fences",
    "parse_json_response",
    "invoke_json",
    "llm_available",
    "llm_failure",
    "message_text",
    "disable_tracing_unless_requested",
]
