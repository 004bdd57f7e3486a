"""The one LLM client of molx-agent: factory, structured output, timeout and backoff policy.

``get_llm(settings)`` returns a ``ChatOpenAI`` (any OpenAI-compatible endpoint) or ``None`` for the
offline rules mode.  Every LLM call goes through this module:

- :func:`invoke_structured` (alias :func:`invoke_json`) asks for an answer matching a pydantic model.  On a
  ``ChatOpenAI`` it uses ``with_structured_output(method=settings.llm_structured_output, include_raw=True)``
  (JSON schema by default, or tool calling, or JSON mode); an endpoint that rejects structured output (HTTP 400/422)
  is remembered and asked with a plain JSON prompt instead.  Either way the answer is validated with the pydantic
  model; ``None`` (the caller uses its rules path) on any failure (down, timeout, HTTP 5xx, invalid JSON, schema
  mismatch).
- :func:`invoke_text` asks for free text (summaries) and :func:`invoke_messages` sends prepared messages (the tool
  agent); :class:`GuardedLLM` gives library code (``sar/``) a ``.invoke(prompt)`` / ``.ask_json(prompt, model)``
  that obeys the same policy.
- One timeout and backoff policy: the client's ``timeout`` and ``max_retries`` come from the settings
  (``MOLX_LLM_TIMEOUT``, ``MOLX_LLM_MAX_RETRIES``); after a failed call (down, timeout, 5xx) the same model is not
  asked again for :data:`LLM_BACKOFF_S` seconds, whatever the caller.
- :func:`history_messages` gives the last turns of the conversation to the classifier and the planner.

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
    return make_chat_model(settings)


def make_chat_model(settings: Settings) -> Any:
    """A ``ChatOpenAI`` on the configured endpoint with this module's timeout and retry policy (no endpoint check)."""
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    return ChatOpenAI(
        model=settings.llm_model,
        temperature=settings.llm_temperature,
        api_key=SecretStr(settings.openai_api_key or "not-needed"),  # local OpenAI-compatible servers need none
        base_url=settings.openai_base_url,
        timeout=settings.llm_timeout,
        max_retries=settings.llm_max_retries,
        metadata={"molx_structured_output": settings.llm_structured_output},
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


#: After a failed call (down, timeout, HTTP 5xx) the same model is not asked again for this many seconds, so a
#: dead or very slow endpoint costs one timeout per run instead of one per graph step.
LLM_BACKOFF_S = 120.0
_failed_at: dict[int, tuple[Any, float, str]] = {}
#: models whose endpoint rejected a structured-output request (HTTP 400/422): asked with a JSON prompt from then on
_no_structured: dict[int, Any] = {}
#: turns of the conversation given to the classifier and the planner (user and assistant messages)
HISTORY_TURNS = 6
_HISTORY_CHARS = 1500


class LLMUnavailable(RuntimeError):
    """Raised by :class:`GuardedLLM` when the model is backing off or the call failed."""


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


def _record_failure(llm: Any, exc: BaseException, what: str) -> None:
    reason = f"{type(exc).__name__}: {str(exc)[:200]}"
    _failed_at[id(llm)] = (llm, time.monotonic(), reason)
    logger.warning("LLM call for %s failed (%s); using the rules path (LLM paused for %.0f s)", what, reason,
                   LLM_BACKOFF_S)


def _rejects_request(exc: BaseException) -> bool:
    """The endpoint refused the request itself (HTTP 400/404/422: e.g. no structured-output support)."""
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and status in (400, 404, 422)


def structured_method(llm: Any) -> str:
    """``json_schema`` | ``function_calling`` | ``json_mode`` for a ``ChatOpenAI`` that supports it, else ``none``."""
    try:
        from langchain_openai.chat_models.base import BaseChatOpenAI
    except ImportError:  # pragma: no cover - langchain-openai is a dependency
        return "none"
    if not isinstance(llm, BaseChatOpenAI) or _no_structured.get(id(llm)) is llm:
        return "none"
    method = str((getattr(llm, "metadata", None) or {}).get("molx_structured_output") or "json_schema")
    return method if method in ("json_schema", "function_calling", "json_mode") else "none"


def _schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema as a plain dict (the answer is validated with the model itself afterwards)."""
    schema = model.model_json_schema()
    schema.setdefault("title", model.__name__)
    schema.setdefault("description", (model.__doc__ or model.__name__).strip().splitlines()[0])
    return schema


def _messages(system: str, user: str, history: list[Any] | None) -> list[Any]:
    from langchain_core.messages import HumanMessage, SystemMessage

    return [SystemMessage(content=system), *(history or []), HumanMessage(content=user)]


def _validate(data: Any, model: type[M]) -> M | None:
    try:
        return model.model_validate(data)
    except (PydanticValidationError, TypeError, ValueError) as exc:
        logger.info("LLM answer rejected for %s: %s", model.__name__, str(exc)[:300])
        return None


def invoke_structured(llm: Any, system: str, user: str, model: type[M], *, what: str = "answer",
                      history: list[Any] | None = None) -> M | None:
    """Ask ``llm`` for an answer matching ``model`` (structured output where supported); ``None`` on any failure.

    ``history``: earlier messages of the conversation, placed between the system prompt and ``user``.
    """
    if llm is None:
        return None
    if not llm_available(llm):
        logger.info("LLM skipped for %s (failed recently); using the rules path", what)
        return None
    messages = _messages(system, user, history)
    method = structured_method(llm)
    if method != "none":
        try:
            runnable = llm.with_structured_output(_schema(model), method=method, include_raw=True)
            out = runnable.invoke(messages)
        except Exception as exc:  # noqa: BLE001 - endpoint down, timeout, 5xx, or no structured-output support
            if not _rejects_request(exc):
                _record_failure(llm, exc, what)
                return None
            logger.warning("the LLM endpoint rejected %s structured output (%s); asking for JSON in the prompt "
                           "from now on", method, str(exc)[:200])
            _no_structured[id(llm)] = llm
        else:
            parsed = out.get("parsed") if isinstance(out, dict) else None
            answer = _validate(parsed, model) if parsed is not None else None
            if answer is None:  # a reply the parser could not read: its text may still hold the JSON
                answer = parse_json_response(message_text(out.get("raw")) if isinstance(out, dict) else "", model)
            if answer is None:
                logger.warning("LLM %s was not valid JSON for %s; using the rules path", what, model.__name__)
            return answer
    try:
        reply = llm.invoke(messages)
    except Exception as exc:  # noqa: BLE001 - endpoint down, timeout, auth: fall back to rules
        _record_failure(llm, exc, what)
        return None
    parsed = parse_json_response(message_text(reply), model)
    if parsed is None:
        logger.warning("LLM %s was not valid JSON for %s; using the rules path", what, model.__name__)
    return parsed


def invoke_json(llm: Any, system: str, user: str, model: type[M], *, what: str = "answer",
                history: list[Any] | None = None) -> M | None:
    """Ask ``llm`` for JSON matching ``model``; ``None`` (caller uses rules) on any failure
    (same as :func:`invoke_structured`)."""
    return invoke_structured(llm, system, user, model, what=what, history=history)


def invoke_messages(llm: Any, messages: list[Any], *, what: str = "answer") -> Any:
    """Send prepared ``messages`` to ``llm`` (e.g. a model bound to tools) under the backoff policy; the reply
    message.  Raises :class:`LLMUnavailable` while backing off or when the call fails (the failure is recorded on
    the underlying model, so a tool-bound model and the plain model share one backoff)."""
    owner = getattr(llm, "bound", llm)
    if not llm_available(owner):
        raise LLMUnavailable(f"LLM skipped for {what} (failed recently: {llm_failure(owner)})")
    try:
        return llm.invoke(messages)
    except Exception as exc:  # noqa: BLE001
        _record_failure(owner, exc, what)
        raise LLMUnavailable(f"LLM call for {what} failed: {type(exc).__name__}: {str(exc)[:200]}") from exc


def invoke_text(llm: Any, system: str, user: str, *, what: str = "answer",
                history: list[Any] | None = None) -> str | None:
    """Free text from ``llm`` under the backoff policy; ``None`` on any failure or an empty reply."""
    if llm is None:
        return None
    try:
        reply = invoke_messages(llm, _messages(system, user, history), what=what)
    except LLMUnavailable as exc:
        logger.info("%s", exc)
        return None
    text = message_text(reply).strip()
    return text or None


class GuardedLLM:
    """``llm`` seen through this module's policy, for library code that only knows ``.invoke(prompt)``:
    ``invoke`` raises :class:`LLMUnavailable` while backing off or on failure; ``ask_json(prompt, model)`` returns
    a validated structured answer or ``None``."""

    def __init__(self, llm: Any, what: str = "answer") -> None:
        self.llm = llm
        self.what = what

    def invoke(self, prompt: Any) -> Any:
        from langchain_core.messages import HumanMessage

        messages = [HumanMessage(content=prompt)] if isinstance(prompt, str) else prompt
        return invoke_messages(self.llm, messages, what=self.what)

    def ask_json(self, prompt: str, model: type[M], system: str = "") -> M | None:
        return invoke_structured(self.llm, system or "Answer with JSON only.", prompt, model, what=self.what)


def guarded(llm: Any, what: str = "answer") -> GuardedLLM | None:
    """:class:`GuardedLLM` of ``llm`` (``None`` stays ``None``; an already guarded model is returned as is)."""
    if llm is None or isinstance(llm, GuardedLLM):
        return llm
    return GuardedLLM(llm, what)


def history_messages(messages: list[Any] | None, turns: int = HISTORY_TURNS) -> list[Any]:
    """The last ``turns`` user/assistant messages before the current one (the state's ``messages`` ends with the
    current user message), each cut to a readable length, for the classifier and the planner."""
    from langchain_core.messages import AIMessage, HumanMessage

    earlier = [m for m in (messages or [])[:-1] if isinstance(m, (HumanMessage, AIMessage))]
    out = []
    for m in earlier[-turns:] if turns > 0 else []:
        text = message_text(m)
        if len(text) > _HISTORY_CHARS:
            text = text[:_HISTORY_CHARS] + " ..."
        out.append(type(m)(content=text))
    return out


__all__ = [
    "get_llm",
    "check_llm_endpoint",
    "endpoint_url",
    "strip_fences",
    "parse_json_response",
    "invoke_json",
    "invoke_structured",
    "invoke_text",
    "invoke_messages",
    "GuardedLLM",
    "guarded",
    "LLMUnavailable",
    "history_messages",
    "make_chat_model",
    "structured_method",
    "llm_available",
    "llm_failure",
    "message_text",
    "disable_tracing_unless_requested",
]
