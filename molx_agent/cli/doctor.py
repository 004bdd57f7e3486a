"""``molx-agent doctor``: check the installation (RDKit, data, LLM endpoint, MCP config, writable dirs)."""

from __future__ import annotations

import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import typer


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # "ok" | "warn" | "fail"
    detail: str


def _writable(path: Path) -> tuple[bool, str]:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return False, f"cannot create {path}: {exc.strerror}"
    return (True, str(path)) if os.access(path, os.W_OK) else (False, f"{path} is not writable")


def run_doctor(settings: Any = None) -> list[Check]:
    """Run every check; never raises."""
    from molx_agent.config import get_settings

    checks: list[Check] = []
    try:
        settings = settings or get_settings()
    except Exception as exc:  # noqa: BLE001 - a bad setting is what doctor reports
        return [Check("settings", "fail", f"invalid settings: {exc}")]
    py = sys.version_info
    checks.append(Check("python", "ok" if py >= (3, 11) else "fail", sys.version.split()[0]))
    try:
        from rdkit import rdBase

        from molx_agent.chem.properties import compute_properties

        mw = compute_properties("CC(=O)Oc1ccccc1C(=O)O")["molecular_weight"]
        checks.append(Check("rdkit", "ok", f"RDKit {rdBase.rdkitVersion}; aspirin MW {mw}, SA score available"))
    except Exception as exc:  # noqa: BLE001
        checks.append(Check("rdkit", "fail", f"{type(exc).__name__}: {exc}"))
    try:
        from molx_agent.chem.names import load_name_table

        checks.append(Check("name_table", "ok", f"{len(load_name_table())} drug/reagent names"))
    except Exception as exc:  # noqa: BLE001
        checks.append(Check("name_table", "fail", f"{type(exc).__name__}: {exc}"))
    try:
        from importlib.metadata import version

        import langgraph  # noqa: F401

        checks.append(Check("langgraph", "ok", f"langgraph {version('langgraph')}, langchain-core {version('langchain-core')}"))
    except Exception as exc:  # noqa: BLE001
        checks.append(Check("langgraph", "fail", f"{type(exc).__name__}: {exc}"))
    for name, check in (("llm", _llm_check), ("mcp", _mcp_check)):
        try:
            checks.append(check(settings))
        except Exception as exc:  # noqa: BLE001 - doctor reports every problem, it never crashes
            checks.append(Check(name, "fail", f"{type(exc).__name__}: {exc}"))
    for label, path in (("output_dir", Path(settings.output_dir)), ("molx_home", settings.home_dir)):
        ok, detail = _writable(path.expanduser())
        checks.append(Check(label, "ok" if ok else "fail", detail))
    try:
        from molx_agent.agents.workers import available_workers

        avail = available_workers()
        missing = [k for k, v in avail.items() if not v]
        checks.append(Check("workers", "warn" if missing else "ok",
                            f"available: {', '.join(k for k, v in avail.items() if v)}"
                            + (f"; not available yet: {', '.join(missing)}" if missing else "")))
    except Exception as exc:  # noqa: BLE001
        checks.append(Check("workers", "fail", f"{type(exc).__name__}: {exc}"))
    return checks


def _llm_check(settings: Any) -> Check:
    from molx_agent.agents.modules.llm import check_llm_endpoint, endpoint_url

    provider = settings.resolved_provider
    if provider == "rules":
        return Check("llm", "ok", "rules mode (offline); set OPENAI_API_KEY or OPENAI_BASE_URL to use an LLM")
    ok, detail = check_llm_endpoint(settings)
    if ok:
        return Check("llm", "ok", f"{settings.llm_model} at {endpoint_url(settings)}")
    status = "warn" if settings.llm_provider == "auto" else "fail"
    suffix = "; auto mode will fall back to rules" if status == "warn" else ""
    return Check("llm", status, detail + suffix)


def _mcp_check(settings: Any) -> Check:
    from molx_agent.agents.modules.mcp import load_mcp_config
    from molx_agent.errors import ConfigError

    path = Path(settings.mcp_servers_config)
    if not path.exists():
        status = "warn" if settings.mcp_enabled else "ok"
        return Check("mcp", status, f"no MCP config at {path}" + (" but MCP_ENABLED=true" if settings.mcp_enabled else ""))
    try:
        servers = load_mcp_config(path)
    except ConfigError as exc:
        return Check("mcp", "fail", str(exc))
    except Exception as exc:  # noqa: BLE001 - doctor reports every problem, it never crashes
        return Check("mcp", "fail", f"{path}: {type(exc).__name__}: {exc}")
    enabled = [n for n, s in servers.items() if s.get("enabled", True)]
    state = "enabled" if settings.mcp_enabled else "disabled (MCP_ENABLED=false)"
    return Check("mcp", "ok", f"{path}: valid, {len(servers)} server(s), {len(enabled)} enabled; MCP {state}")


def register(app: typer.Typer) -> None:
    @app.command("doctor")
    def doctor_cmd(json_out: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
        """Check the installation: RDKit, data, LLM endpoint, MCP config, writable directories."""
        from molx_agent.cli.common import emit_json, handle_errors

        checks = handle_errors(run_doctor)()
        if json_out:
            emit_json([asdict(c) for c in checks])
        else:
            marks = {"ok": "OK  ", "warn": "WARN", "fail": "FAIL"}
            for c in checks:
                typer.echo(f"[{marks[c.status]}] {c.name}: {c.detail}")
        if any(c.status == "fail" for c in checks):
            raise typer.Exit(1)


__all__ = ["Check", "run_doctor", "register"]
