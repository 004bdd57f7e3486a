"""Score the multi-step benchmark's routes with RetroCast, beside our own scorer.

Reads the per-target records of ``benchmarks/multistep.py`` (``--records`` JSONL or ``--out`` JSON: each record
holds the target's routes, best first, as AiZynthFinder-style trees), the benchmark file (``ref-lin-600``: every
target's reference route) and the stock, and scores with ``retrocast`` (the ``bench`` extra; the product never
imports it):

- the task: every recorded target, its reference route as the acceptable route (schema 2), the stock-termination
  constraint on the benchmark stock (InChIKeys, as RetroCast reads a stock);
- the predictions: each record's routes through RetroCast's ``aizynthfinder`` adapter (rank = our order);
- scores at ``match_level`` ``full`` with RetroCast's default acceptable-route rule (``prefix``: the reference is a
  target-rooted prefix of the route, the published semantics), ``full`` with ``exact`` route identity (the rule of
  our own scorer), and ``connectivity`` (first InChIKey block) with ``prefix``;
- ``retrocast.analyze``: solvability (Solv-0 on the stock) and top-1/5/10 with bootstrap 95 % intervals
  (``--n-boot`` 10,000, ``--seed`` 42), overall and per reference route length (RetroCast's ``depth N`` strata).

RetroCast ranks a target's routes after dropping those that fail the task (a leaf outside the stock), so its
top-k counts stock-terminated routes only; our scorer counts the routes as returned (the search returns solved
routes only, so the two agree unless RetroCast's stock check disagrees with ours).

Printed beside RetroCast's figures: our scorer's (``multistep.summarize`` on the same records) and the targets
where the two disagree on top-10 (``full``/``exact`` against our ``match_rank``).  ``--out`` writes JSON,
``--md`` a markdown table for ``docs/benchmarks.md``.

Usage::

    uv sync --extra dev --extra bench
    uv run python benchmarks/retrocast_score.py /tmp/ref600.jsonl --out /tmp/ref600-rc.json --md /tmp/ref600-rc.md
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.multistep import BENCH, STOCK, read_records, summarize  # noqa: E402

KS = (1, 5, 10)
#: (label, match_level, acceptable_route_match) of each RetroCast scoring
SCORINGS = (("full", "full", "prefix"), ("full_exact", "full", "exact"), ("connectivity", "connectivity", "prefix"))
INSTALL_HINT = "install the bench extra: uv sync --extra bench"


class InputError(Exception):
    """Bad input: a one-line message, exit status 2."""


def import_retrocast() -> Any:
    try:
        import retrocast
    except ImportError as exc:
        raise InputError(f"the retrocast package is not installed ({INSTALL_HINT})") from exc
    return retrocast


# -- conversion -----------------------------------------------------------------------------------------------------
def schema2_route(rc: Any, node: dict[str, Any]) -> dict[str, Any]:
    """A benchmark reference tree (``smiles``, ``synthesis_step.reactants``) as a RetroCast schema-2 molecule node
    (``smiles``, ``inchikey``, ``product_of.reactants``); InChIKeys are RetroCast's own."""
    out: dict[str, Any] = {"smiles": node["smiles"], "inchikey": rc.get_inchi_key(node["smiles"])}
    step = node.get("synthesis_step")
    if step and step.get("reactants"):
        out["product_of"] = {"reactants": [schema2_route(rc, k) for k in step["reactants"]]}
    return out


def build_task(rc: Any, targets: dict[str, dict[str, Any]], ids: list[str], stock_name: str,
               name: str = "ref-lin-600") -> dict[str, Any]:
    """The RetroCast task of ``ids``: each target with its reference route as the acceptable route, its
    ``route_length`` as an annotation, and stock termination on ``stock_name`` as the task constraint."""
    task_targets = {}
    for tid in ids:
        t = targets[tid]
        task_targets[tid] = {
            "id": tid, "smiles": t["smiles"], "inchikey": rc.get_inchi_key(t["smiles"]),
            "acceptable_routes": [{"target": schema2_route(rc, t["ground_truth"]["target"]), "schema_version": "2"}],
            "annotations": {"route_length": t.get("route_length")},
        }
    return {"name": name, "targets": task_targets, "schema_version": "2",
            "default_constraints": [{"kind": "retrocast.stock_termination", "stock": stock_name}]}


def raw_predictions(records: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """``{id: [tree, ...]}`` in rank order, the ``aizynthfinder`` adapter's input (a record without routes, e.g. an
    error, is a target with no prediction)."""
    out = {}
    for rec in records:
        trees = rec.get("routes") or []
        out[str(rec["id"])] = sorted(trees, key=lambda t: (t.get("metadata") or {}).get("rank") or 0)
    return out


def load_stock_keys(rc: Any, path: Path) -> list[str]:
    """The stock as InChIKeys (RetroCast's stock constraint compares InChIKeys)."""
    return list(rc.load_stock(str(path), representation="inchikey"))


# -- scoring ---------------------------------------------------------------------------------------------------------
def _metric(metrics: dict[str, Any], name: str) -> dict[str, Any] | None:
    m = metrics.get(name)
    if m is None:
        return None
    return {"value": round(100.0 * m["value"], 1), "ci_low": round(100.0 * m["ci_low"], 1),
            "ci_high": round(100.0 * m["ci_high"], 1), "n": m.get("count")}


def _figures(metrics: dict[str, Any], label: str) -> dict[str, Any]:
    out = {"solvability": _metric(metrics, f"solv_0[{label}]_rate")}
    for k in KS:
        out[f"top{k}"] = _metric(metrics, f"acceptable_reconstruction_top_{k}[{label}]")
    return out


def retrocast_ranks(evaluation: dict[str, Any]) -> dict[str, int | None]:
    """Per target, the rank of the first route matching the reference among the routes that satisfy the task
    (Tier-0 valid and stock-terminated), as RetroCast's top-k counts them; ``None`` when none matches."""
    out: dict[str, int | None] = {}
    for tid, scored in evaluation["targets"].items():
        rank, found = 0, None
        for cand in sorted(scored.get("candidates") or [], key=lambda c: c.get("rank") or 0):
            tiers = (cand.get("validity") or {}).get("tiers") or {}
            useful = ("route" in cand and (tiers.get("0") or {}).get("status") == "pass"
                      and (cand.get("constraints") or {}).get("status") == "pass")
            if not useful:
                continue
            rank += 1
            if cand.get("matches_acceptable"):
                found = rank
                break
        out[tid] = found
    return out


def score_records(records: list[dict[str, Any]], targets: dict[str, dict[str, Any]], stock_keys: list[str],
                  stock_name: str = "n5-stock", n_boot: int = 10_000, seed: int = 42, workers: int = 1,
                  rc: Any = None) -> dict[str, Any]:
    """RetroCast's figures for ``records`` (see the module docstring) and ours beside them."""
    rc = rc or import_retrocast()
    ids = [str(r["id"]) for r in records]
    unknown = [t for t in ids if t not in targets]
    if unknown:
        raise InputError(f"{len(unknown)} recorded id(s) not in the benchmark file, e.g. {unknown[0]}")
    if not ids:
        raise InputError("no per-target records to score")
    task = rc.validate_task(build_task(rc, targets, ids, stock_name), chemistry=False)
    raw = raw_predictions(records)
    stocks = {stock_name: stock_keys}
    scorings: dict[str, Any] = {}
    ranks: dict[str, dict[str, int | None]] = {}
    for label, level, rule in SCORINGS:
        preds = rc.ingest(raw, "aizynthfinder", task, workers=workers)
        evaluation = rc.score(preds, task, stocks, match_level=level, acceptable_route_match=rule, workers=workers)
        report = rc.analyze(evaluation, ks=list(KS), n_boot=n_boot, seed=seed, workers=workers)
        metric_label = evaluation.metric_label()
        snapshot = evaluation.to_dict()
        ranks[label] = retrocast_ranks(snapshot)
        failures = [str(c["failure"].get("code")) for t in snapshot["targets"].values()
                    for c in t.get("candidates") or [] if c.get("failure")]
        strata = {}
        for stratum, metrics in sorted(report.get("by_stratum", {}).items(), key=lambda kv: _stratum_key(kv[0])):
            strata[stratum] = _figures(metrics, metric_label)
        scorings[label] = {"match_level": level, "acceptable_route_match": rule, "metric_label": metric_label,
                           # routes RetroCast could not read (its adapter's failure codes): never a match
                           "n_adaptation_failures": len(failures), "adaptation_failure_codes": sorted(set(failures)),
                           "overall": _figures(report["metrics"], metric_label), "by_stratum": strata}
    ours = summarize(records)
    by_len: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        by_len[int(r.get("route_length") or 0)].append(r)
    ours_by_len = {}
    for length, recs in sorted(by_len.items()):
        s = summarize(recs)
        ours_by_len[f"depth {length}"] = {"n": len(recs), "solvability": s["solvability_pct"], "top1": s["top1_pct"],
                                          "top5": s["top5_pct"], "top10": s["top10_pct"]}
    ours_top10 = {str(r["id"]): r.get("match_rank") is not None and r["match_rank"] <= 10 for r in records}
    rc_top10 = {tid: rank is not None and rank <= 10 for tid, rank in ranks["full_exact"].items()}
    disagree = sorted(tid for tid in ids if ours_top10.get(tid) != rc_top10.get(tid, False))
    prefix_only = sorted(tid for tid in ids if (ranks["full"].get(tid) or 99) <= 10 and not rc_top10.get(tid))
    return {
        "n_targets": len(ids),
        "n_routes_per_target": max((len(r.get("routes") or []) for r in records), default=0),
        "n_records_without_routes_field": sum(1 for r in records if "routes" not in r and "error" not in r),
        "n_errors": sum(1 for r in records if "error" in r),
        "bootstrap": {"n_boot": n_boot, "seed": seed, "ci": 95},
        "retrocast_version": getattr(rc, "__version__", None),
        "retrocast": scorings,
        "ours": {"solvability": ours["solvability_pct"], "top1": ours["top1_pct"], "top5": ours["top5_pct"],
                 "top10": ours["top10_pct"], "top1_connectivity": ours["top1_connectivity_pct"],
                 "top10_connectivity": ours["top10_connectivity_pct"], "by_stratum": ours_by_len},
        "top10_disagreement": {"rule": "our match_rank <= 10 vs RetroCast full/exact rank <= 10",
                               "n": len(disagree), "ids": disagree[:10]},
        "top10_prefix_not_exact": {"n": len(prefix_only), "ids": prefix_only[:10]},
        "retrocast_ranks": ranks,
    }


def _stratum_key(name: str) -> tuple[int, str]:
    tail = name.rsplit(" ", 1)[-1]
    return (int(tail), name) if tail.isdigit() else (10**6, name)


# -- output ----------------------------------------------------------------------------------------------------------
def _ci(m: dict[str, Any] | None) -> str:
    if not m:
        return "n/a"
    return f"{m['value']:.1f} [{m['ci_low']:.1f}, {m['ci_high']:.1f}]"


def markdown(result: dict[str, Any], title: str = "") -> str:
    """Two tables: overall (RetroCast's three scorings and ours) and per reference route length."""
    rc = result["retrocast"]
    lines = []
    if title:
        lines += [title, ""]
    lines += [f"{result['n_targets']} targets, up to {result['n_routes_per_target']} routes each; RetroCast "
              f"{result['retrocast_version']}, bootstrap 95 % CI ({result['bootstrap']['n_boot']} resamples, seed "
              f"{result['bootstrap']['seed']}); percentages.", "",
              "| scorer | solvability | top-1 | top-5 | top-10 |", "|---|---|---|---|---|"]
    names = {"full": "RetroCast (full InChIKey, prefix match)", "full_exact": "RetroCast (full InChIKey, exact route)",
             "connectivity": "RetroCast (connectivity, prefix match)"}
    for label, _, _ in SCORINGS:
        o = rc[label]["overall"]
        lines.append(f"| {names[label]} | {_ci(o['solvability'])} | {_ci(o['top1'])} | {_ci(o['top5'])} | "
                     f"{_ci(o['top10'])} |")
    ours = result["ours"]
    lines.append(f"| ours (InChIKey reaction sets) | {ours['solvability']:.1f} | {ours['top1']:.1f} | "
                 f"{ours['top5']:.1f} | {ours['top10']:.1f} |")
    n_fail = rc["full"].get("n_adaptation_failures", 0)
    if n_fail:
        lines += ["", f"Routes RetroCast could not read (never a match): {n_fail} "
                      f"({', '.join(rc['full']['adaptation_failure_codes'])})"]
    lines += ["", f"Targets where ours and RetroCast (full, exact) disagree on top-10: {result['top10_disagreement']['n']}"
              + (f" ({', '.join(result['top10_disagreement']['ids'])})" if result["top10_disagreement"]["ids"] else ""),
              "", "Per reference route length (RetroCast full InChIKey, prefix match; ours in the last column):", "",
              "| route length | n | solvability | top-1 | top-10 | ours top-10 |", "|---|---|---|---|---|---|"]
    for stratum, figs in rc["full"]["by_stratum"].items():
        n = (figs.get("solvability") or {}).get("n")
        our = ours["by_stratum"].get(stratum, {})
        length = stratum.rsplit(" ", 1)[-1]
        lines.append(f"| {length} | {n if n is not None else 'n/a'} | {_ci(figs['solvability'])} | {_ci(figs['top1'])} | "
                     f"{_ci(figs['top10'])} | {our.get('top10', 'n/a')} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Score multistep.py records with RetroCast, beside our own scorer")
    ap.add_argument("records", type=Path, help="multistep.py --records JSONL or --out JSON")
    ap.add_argument("--benchmark", type=Path, default=BENCH)
    ap.add_argument("--stock", type=Path, default=STOCK, help="the stock the routes were searched with (SMILES file)")
    ap.add_argument("--stock-name", default=None, help="the stock's label (default: the benchmark's stock_name)")
    ap.add_argument("--n-boot", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", type=Path, default=None, help="write the figures as JSON")
    ap.add_argument("--md", type=Path, default=None, help="write the markdown tables")
    ap.add_argument("--exclude-ids-file", type=Path, action="append", default=[],
                    help="leave out the targets listed in this file (one id per line; repeatable), e.g. the "
                         "development samples benchmarks/ref-lin-600_dev*.txt for the tuning-leak subset")
    args = ap.parse_args(argv)
    try:
        rc = import_retrocast()
        for what, path in (("records", args.records), ("benchmark", args.benchmark), ("stock", args.stock),
                           *(("ids", p) for p in args.exclude_ids_file)):
            if not path.is_file():
                raise InputError(f"{what} file not found: {path}")
        try:
            meta, records = read_records(args.records)
        except (OSError, EOFError, UnicodeDecodeError) as exc:  # EOFError: a .gz cut short
            raise InputError(f"cannot read records {args.records}: {exc}") from exc
        excluded = {line.strip() for p in args.exclude_ids_file for line in p.read_text().splitlines() if line.strip()}
        n_read = len(records)
        records = [r for r in records if str(r.get("id")) not in excluded]
        if not records:
            raise InputError(f"no per-target records in {args.records} (a multistep.py --records or --out file?)"
                             + (f"; {n_read} read, all excluded" if n_read else ""))
        try:
            with gzip.open(args.benchmark, "rt", encoding="utf-8") as fh:
                bench = json.load(fh)
            targets = bench["targets"]
        except (OSError, json.JSONDecodeError, KeyError, TypeError) as exc:
            raise InputError(f"cannot read the benchmark file {args.benchmark}: {exc}") from exc
        stock_name = args.stock_name or bench.get("stock_name") or "stock"
        keys = load_stock_keys(rc, args.stock)
        if not keys:
            raise InputError(f"no molecules read from the stock file {args.stock}")
        result = score_records(records, targets, keys, stock_name=stock_name, n_boot=args.n_boot, seed=args.seed,
                               workers=args.workers, rc=rc)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    result["records_file"] = str(args.records)
    result["excluded"] = {"files": [str(p) for p in args.exclude_ids_file], "n_records": n_read - len(records)}
    result["search"] = meta
    result["stock"] = {"file": args.stock.name, "name": stock_name, "n_inchikeys": len(keys)}
    md = markdown(result, title=f"### RetroCast scoring: {bench.get('name', args.benchmark.name)}")
    print(md)
    summary = {k: result[k] for k in ("n_targets", "n_errors", "ours", "top10_disagreement")}
    summary["retrocast"] = {k: v["overall"] for k, v in result["retrocast"].items()}
    print(json.dumps(summary, indent=2))
    from molx_agent.io_utils import atomic_write_json, atomic_write_text

    if args.out:
        atomic_write_json(args.out, result)
    if args.md:
        atomic_write_text(args.md, md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
