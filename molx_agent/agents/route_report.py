"""Route reports for the reporter worker: one shared report look (``molx_agent.retro.report``).

``write_route_report(result, output_dir=None, *, language="en", validation=None, output_root=None)`` takes a
``disconnection`` result (``route_graph`` + search summary; with ``targets`` for several targets) and,
optionally, the ``validation`` worker's result for that route, writes one report per target and returns
``{"report_paths": [...], "summary": ...}``.  A target without a route graph (its search failed) is
named in the summary, never skipped silently.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from molx_agent.errors import ValidationError


def _target_judgement(validation: dict[str, Any] | None, record: dict[str, Any]) -> dict[str, Any] | None:
    """The validation worker's judgement of ``record``'s target, when there is one."""
    for t in (validation or {}).get("targets") or []:
        if t.get("target_smiles") == record.get("target_smiles"):
            return t
    return None


def best_graph(record: dict[str, Any], judgement: dict[str, Any] | None) -> dict[str, Any] | None:
    """The route to report: the judged best route, else the search's best (or partial) route."""
    graphs = record.get("route_graphs") or []
    if judgement and judgement.get("best_route") is not None and judgement["best_route"] < len(graphs):
        return graphs[judgement["best_route"]]
    return record.get("route_graph")


def _extra(record: dict[str, Any], language: str, validation: dict[str, Any] | None) -> dict[str, Any]:
    extra: dict[str, Any] = {"language": language, "summary": record.get("summary", "")}
    judgement = _target_judgement(validation, record)
    if judgement:
        extra["verdict"] = judgement.get("verdict")
        extra["confidence"] = judgement.get("confidence")
        if judgement.get("issues"):
            extra["issues"] = "; ".join(str(i.get("message", i.get("code"))) for i in judgement["issues"][:6])
        if judgement.get("summary"):
            extra["judgement"] = judgement["summary"]
    if record.get("searches"):
        extra["searches"] = "; ".join(
            f"#{s.get('attempt')} {s.get('strategy')}: {'solved' if s.get('solved') else 'unsolved'}, "
            f"{s.get('n_expansions')} expansions in {s.get('time_s')} s" for s in record["searches"])
    for key in ("stock", "n_expansions", "time_s", "solved", "stopped_by"):
        if record.get(key) is not None:
            extra[key] = record[key]
    extra["n_routes_found"] = len(record.get("routes") or [])
    guided = record.get("guided")
    if guided:  # a guided route: every decision (who took it, fallbacks) in the report's decision table
        extra["audit_state"] = {"decision_history": list(guided.get("decisions") or [])}
        extra["retro_mode"] = f"guided (decisions by {guided.get('decided_by')})"
        extra["decision_fallbacks"] = int(guided.get("n_fallbacks") or 0)
    if record.get("reasons"):
        extra["reasons"] = "; ".join(record["reasons"])
    if validation and judgement is None:
        if "all_valid" in validation:
            extra["all_steps_valid"] = validation["all_valid"]
        if validation.get("summary"):
            extra["validation_summary"] = validation["summary"]
    return extra


def write_route_report(
    result: dict[str, Any],
    output_dir: str | Path | None = None,
    *,
    language: str = "en",
    validation: dict[str, Any] | None = None,
    output_root: str | Path | None = None,
) -> dict[str, Any]:
    """Write the route report(s) of a ``disconnection`` result; returns ``report_paths`` and ``summary``.

    Without ``output_dir`` the report goes to a new timestamped folder under ``output_root`` (the agent's
    ``MOLX_OUTPUT_DIR`` / ``run --output-dir``; default: the global settings' ``output_dir``).
    """
    from molx_agent.config import get_settings
    from molx_agent.io_utils import timestamped_dir
    from molx_agent.retro.report import render_route_report
    from molx_agent.retro.route import RetroGraph

    records = list(result.get("targets") or [result])
    if not any(r.get("route_graph") or r.get("route_graphs") for r in records):
        raise ValidationError("no_route", "the route search produced no route to report",
                              value=result.get("target_smiles"), hint="run the disconnection worker first")
    first_name = records[0].get("target_name") or "target"
    root = Path(output_root) if output_root else Path(get_settings().output_dir)
    base = Path(output_dir) if output_dir else timestamped_dir(root, f"route_{first_name}")
    paths: list[str] = []
    lines: list[str] = []
    for i, record in enumerate(records, start=1):
        label = record.get("target_name") or record.get("target_smiles", "?")
        graph_dict = best_graph(record, _target_judgement(validation, record))
        if record.get("purchasable"):
            lines.append(f"{label}: 可直接购买" if language == "zh" else f"{label}: sold as such (buy it)")
            continue
        if not graph_dict:
            lines.append(f"{label}: 没有可报告的路线" if language == "zh" else f"{label}: no route to report")
            continue
        graph = RetroGraph.from_dict(graph_dict)
        out = base if len(records) == 1 else base / f"target_{i}"
        written = render_route_report(graph, out, name=record.get("target_name", ""),
                                      extra=_extra(record, language, validation))
        html = written.get("html")
        paths.extend(str(written[k]) for k in ("html", "md", "json") if k in written)
        if html:
            lines.append(f"{label}: 报告 {html}" if language == "zh" else f"{label}: report {html}")
    head = "路线报告已写入。" if language == "zh" else "Route report written."
    return {"report_paths": paths, "summary": " ".join([head, *lines]), "output_dir": str(base)}


__all__ = ["write_route_report"]
