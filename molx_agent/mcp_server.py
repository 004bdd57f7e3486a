"""molx-agent as an MCP server: the 13 retrosynthesis skills and route search as MCP tools.

``molx-agent mcp-server`` serves over stdio (for Claude Desktop, langchain-mcp-adapters, ...);
``molx-agent mcp-server --http PORT`` serves streamable HTTP on ``127.0.0.1:PORT/mcp``.
Every skill tool takes the skill's arguments (same JSON schema as ``molx-agent skill --list``)
and returns the SkillResult ``{success, data, error}`` as JSON text.  ``search_routes`` runs
molx-agent's multi-step route search with the CLI's limits (``SearchConfig`` defaults) and returns the same
payload as ``molx-agent route --json`` (:func:`molx_agent.retro.payload.search_payload`).  Every tool runs on one
:class:`~molx_agent.retro.engine.RetroEngine`, built once by :func:`build_server` (default: the process-wide engine).
Nothing here prints to stdout (stdio is the protocol).
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from molx_agent.io_utils import dumps
from molx_agent.retro.search_types import SearchConfig

if TYPE_CHECKING:
    from molx_agent.retro.engine import RetroEngine

logger = logging.getLogger(__name__)

#: the search limits, written once in ``SearchConfig`` (the same defaults as ``molx-agent route``)
DEFAULTS = SearchConfig()

SERVER_NAME = "molx-agent"
INSTRUCTIONS = (
    "Offline retrosynthesis toolkit. Typical loop: decide_strategy -> analyze_molecule (atom_bond_map."
    "strategic_bonds) -> break_bond or propose_disconnection -> validate_reaction (hard gate; repair_reaction "
    "when is_valid=false, at most 3 times) -> check_availability -> recurse on non-terminal precursors -> "
    "render_report. search_routes finds whole routes automatically. Every tool returns JSON "
    "{success, data, error}."
)


def _skill_function(name: str, engine: RetroEngine | None = None) -> Any:
    """A plain function whose signature mirrors skill ``name``'s pydantic Args (for FastMCP's schema), running the
    skill on ``engine``."""
    from molx_agent.interfaces.skills import SKILL_REGISTRY, run_skill

    skill_cls = SKILL_REGISTRY[name]
    params = []
    for field_name, field in skill_cls.Args.model_fields.items():
        info = Field(description=field.description) if field.description else Field()
        default = inspect.Parameter.empty if field.is_required() else field.default
        params.append(
            inspect.Parameter(
                field_name,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=Annotated[field.annotation, info],
                default=default,
            )
        )

    def call(**kwargs: Any) -> str:
        args = {
            k: v for k, v in kwargs.items() if v is not None or skill_cls.Args.model_fields[k].is_required()
        }
        return dumps(run_skill(name, args, engine=engine).to_dict())

    call.__name__ = name
    call.__doc__ = skill_cls.description
    call.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    call.__annotations__ = {p.name: p.annotation for p in params} | {"return": str}
    return call


def run_search(engine: RetroEngine | None, target: str, *, time_limit: float | None = None,
               max_depth: int | None = None, n_routes: int | None = None, max_expansions: int | None = None,
               stock: str | None = None) -> dict[str, Any]:
    """The ``search_routes`` tool's answer as a dict: ``{success, data: search_payload + route_texts, error}``."""
    from molx_agent.errors import RetroError
    from molx_agent.interfaces._engine import engine_or_default, engine_with_stock
    from molx_agent.interfaces.skills import SkillResult

    try:
        from molx_agent.retro.payload import search_payload
        from molx_agent.retro.targets import resolve_target

        smiles, name = resolve_target(target)
        eng = engine_with_stock(engine_or_default(engine), stock or None)
        result = eng.search(smiles, time_limit=time_limit, max_depth=max_depth, n_routes=n_routes,
                            max_expansions=max_expansions, name=name)
        data = search_payload(result, target=target, name=name)
        data["route_texts"] = [g.to_text() for g in result.routes]
        if not result.solved and result.partial_route is not None:
            data["partial_route_text"] = result.partial_route.to_text()
        return SkillResult.ok(data).to_dict()
    except RetroError as exc:
        return SkillResult.from_error(exc).to_dict()
    except Exception as exc:  # noqa: BLE001 - an MCP tool answers with an error, never crashes the server
        logger.error("search_routes failed: %s: %s", type(exc).__name__, exc)
        logger.debug("search_routes traceback", exc_info=True)
        return SkillResult(
            success=False, error=f"search failed: {type(exc).__name__}: {exc}", error_code="search_failed"
        ).to_dict()


def _search_function(engine: RetroEngine | None = None) -> Callable[..., str]:
    """The ``search_routes`` tool on ``engine`` (its parameters are the MCP schema)."""

    def search_routes(
        target_smiles: Annotated[str, Field(description="target SMILES (or a known compound name)")],
        time_limit: Annotated[
            float, Field(description="search time limit in seconds", gt=0, le=600)
        ] = DEFAULTS.time_limit,
        max_depth: Annotated[
            int, Field(description="maximum number of steps on a branch", ge=1, le=20)
        ] = DEFAULTS.max_depth,
        n_routes: Annotated[int, Field(description="number of routes to return", ge=1, le=20)] = DEFAULTS.n_routes,
        max_expansions: Annotated[
            int, Field(description="maximum molecule expansions", ge=1, le=100_000)
        ] = DEFAULTS.max_expansions,
        stock: Annotated[
            str | None,
            Field(description="stock: 'zinc', stock file path(s), comma-separated; default stock if empty"),
        ] = None,
    ) -> str:
        """Multi-step retrosynthesis route search (best-first AND-OR search over molx-agent's single-step model,
        stock-terminated), with the same limits and payload as `molx-agent route --json`. Returns {success, data:
        {target_smiles, solved, routes (reaction trees), route_summaries (confidence, issues, starting materials
        with their tier), partial_route, n_expansions, time_s, reasons, stopped_by, stock, summary, route_texts},
        error}."""
        return dumps(run_search(engine, target_smiles, time_limit=time_limit, max_depth=max_depth,
                                n_routes=n_routes, max_expansions=max_expansions, stock=stock))

    return search_routes


#: ``search_routes`` on the process-wide engine (what ``build_server()`` serves without an engine)
search_routes = _search_function(None)


def build_server(host: str = "127.0.0.1", port: int = 8000, engine: RetroEngine | None = None) -> Any:
    """The FastMCP server with one tool per skill plus ``search_routes``, all on one engine (``engine``, else the
    process-wide engine built from settings)."""
    from mcp.server.fastmcp import FastMCP

    from molx_agent.interfaces._engine import engine_or_default
    from molx_agent.interfaces.skills import SKILL_REGISTRY

    engine = engine_or_default(engine)
    server = FastMCP(SERVER_NAME, instructions=INSTRUCTIONS, host=host, port=port, log_level="WARNING")
    for name in sorted(SKILL_REGISTRY):
        server.add_tool(_skill_function(name, engine), name=name, description=SKILL_REGISTRY[name].description)
    server.add_tool(_search_function(engine), name="search_routes")
    return server


def tool_names() -> list[str]:
    from molx_agent.interfaces.skills import SKILL_REGISTRY

    return sorted(SKILL_REGISTRY) + ["search_routes"]


def serve(http_port: int | None = None, host: str = "127.0.0.1", engine: RetroEngine | None = None) -> None:
    """Run the server on ``engine`` (default: the process-wide engine): stdio, or streamable HTTP on
    ``host:http_port`` (path ``/mcp``)."""
    if http_port is None:
        build_server(engine=engine).run("stdio")
    else:
        build_server(host=host, port=http_port, engine=engine).run("streamable-http")


__all__ = ["build_server", "serve", "search_routes", "run_search", "tool_names", "SERVER_NAME", "DEFAULTS"]
