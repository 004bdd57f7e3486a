"""molx-agent as an MCP server: the 13 retrosynthesis skills and route search as MCP tools.

``molx-agent mcp-server`` serves over stdio (for Claude Desktop, langchain-mcp-adapters, ...);
``molx-agent mcp-server --http PORT`` serves streamable HTTP on ``127.0.0.1:PORT/mcp``.
Every skill tool takes the skill's arguments (same JSON schema as ``molx-agent skill --list``)
and returns the SkillResult ``{success, data, error}`` as JSON text.  ``search_routes`` runs
molx-agent's multi-step route search.  Nothing here prints to stdout (stdio is the protocol).
"""

from __future__ import annotations

import inspect
import logging
from typing import Annotated, Any

from pydantic import Field

from molx_agent.io_utils import dumps

logger = logging.getLogger(__name__)

SERVER_NAME = "molx-agent"
INSTRUCTIONS = (
    "Offline retrosynthesis toolkit. Typical loop: decide_strategy -> analyze_molecule (atom_bond_map."
    "strategic_bonds) -> break_bond or propose_disconnection -> validate_reaction (hard gate; repair_reaction "
    "when is_valid=false, at most 3 times) -> check_availability -> recurse on non-terminal precursors -> "
    "render_report. search_routes finds whole routes automatically. Every tool returns JSON "
    "{success, data, error}."
)


def _skill_function(name: str) -> Any:
    """A plain function whose signature mirrors skill ``name``'s pydantic Args (for FastMCP's schema)."""
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
        return dumps(run_skill(name, args).to_dict())

    call.__name__ = name
    call.__doc__ = skill_cls.description
    call.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    call.__annotations__ = {p.name: p.annotation for p in params} | {"return": str}
    return call


def search_routes(
    target_smiles: Annotated[str, Field(description="target SMILES")],
    time_limit: Annotated[float, Field(description="search time limit in seconds", gt=0, le=600)] = 30.0,
    max_depth: Annotated[int, Field(description="maximum number of steps on a branch", ge=1, le=20)] = 7,
    n_routes: Annotated[int, Field(description="number of routes to return", ge=1, le=20)] = 3,
    stock: Annotated[
        str | None,
        Field(description="stock: 'zinc', stock file path(s), comma-separated; default stock if empty"),
    ] = None,
) -> str:
    """Multi-step retrosynthesis route search (best-first AND-OR search over molx-agent's single-step model,
    stock-terminated). Returns {success, data: {solved, routes (reaction trees), n_expansions, time_s, reasons,
    stock}, error}."""
    from molx_agent.errors import RetroError
    from molx_agent.interfaces.skills import SkillResult

    try:
        from molx_agent.retro.export import to_aizynth_tree
        from molx_agent.retro.search import search_routes as _search

        result = _search(
            target_smiles, stock=stock, time_limit=time_limit, max_depth=max_depth, n_routes=n_routes
        )
        data = {
            "solved": bool(result.solved),
            "routes": [to_aizynth_tree(g) for g in result.routes],
            "route_texts": [g.to_text() for g in result.routes],
            "n_expansions": result.n_expansions,
            "time_s": result.time_s,
            "reasons": list(result.reasons or []),
            "stock": str(result.stock),
        }
        if not result.solved and result.partial_route is not None:
            data["partial_route"] = to_aizynth_tree(result.partial_route)
            data["partial_route_text"] = result.partial_route.to_text()
        return dumps(SkillResult.ok(data).to_dict())
    except RetroError as exc:
        return dumps(SkillResult.from_error(exc).to_dict())
    except Exception as exc:  # noqa: BLE001 - an MCP tool answers with an error, never crashes the server
        logger.error("search_routes failed: %s: %s", type(exc).__name__, exc)
        logger.debug("search_routes traceback", exc_info=True)
        return dumps(
            SkillResult(
                success=False, error=f"search failed: {type(exc).__name__}: {exc}", error_code="search_failed"
            ).to_dict()
        )


def build_server(host: str = "127.0.0.1", port: int = 8000) -> Any:
    """The FastMCP server with one tool per skill plus ``search_routes``."""
    from mcp.server.fastmcp import FastMCP

    from molx_agent.interfaces.skills import SKILL_REGISTRY

    server = FastMCP(SERVER_NAME, instructions=INSTRUCTIONS, host=host, port=port, log_level="WARNING")
    for name in sorted(SKILL_REGISTRY):
        server.add_tool(_skill_function(name), name=name, description=SKILL_REGISTRY[name].description)
    server.add_tool(search_routes, name="search_routes")
    return server


def tool_names() -> list[str]:
    from molx_agent.interfaces.skills import SKILL_REGISTRY

    return sorted(SKILL_REGISTRY) + ["search_routes"]


def serve(http_port: int | None = None, host: str = "127.0.0.1") -> None:
    """Run the server: stdio, or streamable HTTP on ``host:http_port`` (path ``/mcp``)."""
    if http_port is None:
        build_server().run("stdio")
    else:
        build_server(host=host, port=http_port).run("streamable-http")


__all__ = ["build_server", "serve", "search_routes", "tool_names", "SERVER_NAME"]
