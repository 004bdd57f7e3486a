"""The first route to well-known drugs with the default stock, as a chemist sees it (``molx-agent route NAME``).

For each drug: the best route's steps in forward order (reaction names), its starting materials with the stock that
has them and their purchasability tier, the route's confidence and issues, the search's time and stop reason.
Used for the chemist's table in ``docs/benchmarks.md`` (old and new code side by side: the script runs with either,
reading the fields the code provides).

Usage::

    nice uv run python benchmarks/drug_routes.py --time-limit 30 --workers 2 --out /tmp/drug_routes.json
    nice uv run python benchmarks/drug_routes.py --time-limit 30 --workers 2 --drugs all --out /tmp/drug_routes.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

DRUGS = ("paracetamol", "aspirin", "ibuprofen", "naproxen", "diphenhydramine", "haloperidol", "venlafaxine",
         "salbutamol", "losartan", "imatinib", "bupropion", "fluoxetine", "sildenafil", "atenolol", "propranolol",
         "omeprazole", "celecoxib", "diazepam", "lidocaine", "metoprolol")
#: Forty more, read for the first time on 2026-11-30 (docs/benchmarks.md, "Forty more drugs"): ``--drugs more`` runs
#: them, ``--drugs all`` the sixty.
MORE_DRUGS = ("diclofenac", "ketoprofen", "mefenamic acid", "indomethacin", "gefitinib", "erlotinib", "sorafenib",
              "dasatinib", "nilotinib", "letrozole", "anastrozole", "bicalutamide", "clopidogrel", "rivaroxaban",
              "apixaban", "amlodipine", "nifedipine", "verapamil", "valsartan", "furosemide", "clonidine", "fentanyl",
              "tramadol", "methadone", "pioglitazone", "tolbutamide", "glibenclamide", "tamoxifen", "lenalidomide",
              "thalidomide", "olaparib", "ruxolitinib", "lapatinib", "lenvatinib", "cabozantinib", "pazopanib",
              "fenofibrate", "guaifenesin", "warfarin", "enzalutamide")
#: Forty more, added to the name table and read for the first time on 2026-12-07 (docs/benchmarks.md, "Forty drugs new
#: to the name table"): ``--drugs new`` runs them, ``--drugs every`` all hundred.
NEW_DRUGS = ("telmisartan", "irbesartan", "candesartan", "olmesartan", "bisoprolol", "carvedilol", "pantoprazole",
             "esomeprazole", "escitalopram", "vardenafil", "tamsulosin", "ramipril", "linagliptin", "vildagliptin",
             "glimepiride", "gliclazide", "canagliflozin", "ribociclib", "abemaciclib", "alectinib", "venetoclax",
             "baricitinib", "etoricoxib", "nabumetone", "valaciclovir", "tenofovir", "voriconazole", "terbinafine",
             "moxifloxacin", "linezolid", "mebendazole", "albendazole", "praziquantel", "fexofenadine", "desloratadine",
             "buspirone", "atomoxetine", "apremilast", "montelukast", "ticagrelor")
#: Forty drugs the name table already held, read as a set for the first time on 2026-12-07 (docs/benchmarks.md, "Forty
#: more drugs of the name table"): ``--drugs rest``.
REST_DRUGS = ("piroxicam", "meloxicam", "sitagliptin", "empagliflozin", "atorvastatin", "rosuvastatin", "ezetimibe",
              "afatinib", "osimertinib", "regorafenib", "sunitinib", "ibrutinib", "vemurafenib", "axitinib",
              "tofacitinib", "palbociclib", "pomalidomide", "capecitabine", "hydrochlorothiazide", "tadalafil",
              "lansoprazole", "metoclopramide", "ondansetron", "loperamide", "loratadine", "cetirizine", "sertraline",
              "paroxetine", "vortioxetine", "mirtazapine", "risperidone", "quetiapine", "aripiprazole", "donepezil",
              "lamotrigine", "sumatriptan", "zolpidem", "ciprofloxacin", "efavirenz", "febuxostat")
#: And forty more of the table, read the same day: ``--drugs other``.
OTHER_DRUGS = ("caffeine", "theophylline", "nicotine", "crizotinib", "methotrexate", "diltiazem", "amiodarone",
               "captopril", "enalapril", "acetazolamide", "ranitidine", "famotidine", "cimetidine", "citalopram",
               "duloxetine", "amitriptyline", "imipramine", "alprazolam", "lorazepam", "clozapine", "chlorpromazine",
               "carbamazepine", "phenytoin", "gabapentin", "pregabalin", "levetiracetam", "memantine", "riluzole",
               "methylphenidate", "modafinil", "baclofen", "procaine", "ketamine", "metronidazole", "levofloxacin",
               "sulfamethoxazole", "trimethoprim", "fluconazole", "nevirapine", "chloroquine")
#: Forty drugs added to the name table and read for the first time on 2026-12-07 night (docs/benchmarks.md, "Forty
#: further drugs"): local anaesthetics, NSAIDs, triptans, antiparkinsonians, antiarrhythmics, fibrates and more;
#: ``--drugs further``.
FURTHER_DRUGS = ("bupivacaine", "ropivacaine", "prilocaine", "ketorolac", "flurbiprofen", "tolmetin", "nimesulide",
                 "pyrazinamide", "dapsone", "tinidazole", "rizatriptan", "zolmitriptan", "ropinirole", "pramipexole",
                 "rasagiline", "entacapone", "lacosamide", "oxcarbazepine", "trazodone", "ziprasidone", "domperidone",
                 "tolterodine", "cilostazol", "ranolazine", "propafenone", "flecainide", "indapamide", "torasemide",
                 "rosiglitazone", "gemfibrozil", "bezafibrate", "leflunomide", "flutamide", "raloxifene", "bosentan",
                 "chlorambucil", "temozolomide", "fluvoxamine", "labetalol", "repaglinide")
#: Forty more of the name table (2026-12-08): diuretics, alpha blockers, antihistamines, antiepileptics, azoles,
#: kinase inhibitors and others.
BEYOND_DRUGS = ("felodipine", "hydralazine", "minoxidil", "prazosin", "doxazosin", "bumetanide", "chlorthalidone",
                "amiloride", "triamterene", "primidone", "phenobarbital", "rufinamide", "chlorphenamine", "promethazine",
                "hydroxyzine", "cyproheptadine", "nortriptyline", "moclobemide", "agomelatine", "zopiclone",
                "sulfadiazine", "nitrofurantoin", "clotrimazole", "miconazole", "ambrisentan", "riociguat",
                "alogliptin", "rabeprazole", "vandetanib", "bosutinib", "tapentadol", "alfuzosin", "mirabegron",
                "oxybutynin", "ticlopidine", "prasugrel", "zafirlukast", "roflumilast", "probenecid", "selegiline")
DRUG_SETS = {"more": MORE_DRUGS, "all": DRUGS + MORE_DRUGS, "new": NEW_DRUGS, "every": DRUGS + MORE_DRUGS + NEW_DRUGS,
             "rest": REST_DRUGS, "other": OTHER_DRUGS, "further": FURTHER_DRUGS, "beyond": BEYOND_DRUGS}


def _route_view(graph: Any) -> dict[str, Any]:
    steps = []
    for rxn in graph.forward_order():
        product = graph.molecule_nodes[rxn.product_node].smiles
        reactants = [graph.molecule_nodes[r].smiles for r in rxn.reactant_nodes]
        steps.append({"name": rxn.reaction_type or rxn.template_evidence.template_name or "step",
                      "reaction": ".".join(reactants) + ">>" + product, "score": rxn.score})
    leaves = []
    for node in graph.leaves():
        avail = node.availability or {}
        leaves.append({"smiles": node.smiles, "source": avail.get("source"), "tier": avail.get("tier"),
                       "heavy_atoms": _heavy(node.smiles)})
    route = graph.metadata.get("route") or {}
    return {"n_steps": graph.n_steps, "steps": steps, "leaves": leaves,
            "confidence": route.get("confidence"), "issues": [i.get("code") for i in route.get("issues", [])]}


def _heavy(smiles: str) -> int | None:
    from rdkit import Chem

    mol = Chem.MolFromSmiles(smiles)
    return mol.GetNumHeavyAtoms() if mol is not None else None


def run_one(name: str, time_limit: float, target_expansion: str | None = None,
            union_depth: int | None = None, rescore_routes: int | None = None) -> dict[str, Any]:
    import logging

    logging.disable(logging.WARNING)
    from molx_agent.chem.names import lookup_name
    from molx_agent.retro.search import SearchConfig, search_routes

    entry = lookup_name(name)
    t0 = time.perf_counter()
    # the CLI's defaults but the time limit (and the target expansion, union depth and re-ranking when asked)
    cfg = SearchConfig(time_limit=float(time_limit))
    if target_expansion is not None:
        cfg = dataclasses.replace(cfg, target_expansion=target_expansion)
    if union_depth is not None:
        cfg = dataclasses.replace(cfg, union_depth=union_depth)
    if rescore_routes is not None:
        cfg = dataclasses.replace(cfg, rescore_routes=rescore_routes)
    res = search_routes(entry.smiles, config=cfg, name=name)
    out: dict[str, Any] = {"name": name, "smiles": entry.smiles, "solved": res.solved, "n_routes": len(res.routes),
                           "time_s": round(time.perf_counter() - t0, 1), "stopped_by": res.stopped_by,
                           "n_expansions": res.n_expansions, "rescoring": (res.stats or {}).get("rescoring")}
    best = res.best_route
    if best is not None:
        out["first_route"] = _route_view(best)
    return out


def _packed(args: tuple[str, float, str | None, int | None, int | None]) -> dict[str, Any]:
    return run_one(*args)


def markdown(records: list[dict[str, Any]]) -> str:
    lines = ["| drug | solved | steps (forward) | starting materials (source, tier) | confidence / issues |",
             "|---|---|---|---|---|"]
    for r in records:
        route = r.get("first_route") or {}
        steps = "; ".join(f"{s['name']}" + (f" ({s['score']:.2g})" if isinstance(s.get("score"), float) else "")
                          for s in route.get("steps", []))
        leaves = "; ".join(f"`{x['smiles']}` ({x['source']}, {x['tier'] or '-'})" for x in route.get("leaves", []))
        trust = f"{route.get('confidence') or '-'}: {', '.join(route.get('issues') or []) or '-'}"
        lines.append(f"| {r['name']} | {'yes' if r['solved'] else 'no'} | {steps or '-'} | {leaves or '-'} | {trust} |")
    return "\n".join(lines) + "\n"


def drug_names(spec: str) -> list[str]:
    """The drug names ``--drugs`` asks for: a set's name (``more``, ``all``, ``new``, ``every``, ``rest``, ``other``,
    ``further``) or comma-separated names."""
    return list(DRUG_SETS.get(spec.strip()) or [name.strip() for name in spec.split(",") if name.strip()])


def checked_drug_names(ap: argparse.ArgumentParser, spec: str) -> list[str]:
    """:func:`drug_names`, or ``ap.error`` (exit 2) when a name is not in the packaged name table or none is given."""
    from molx_agent.chem.names import lookup_name

    names = drug_names(spec)
    unknown = [name for name in names if lookup_name(name) is None]
    if unknown or not names:
        ap.error(f"not in the packaged name table: {', '.join(unknown)}" if unknown else "--drugs names no drug")
    return names


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="first routes to well-known drugs with the default stock")
    ap.add_argument("--time-limit", type=float, default=30.0)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--drugs", default=",".join(DRUGS),
                    help="comma-separated names from the packaged name table, or 'more' (forty more), 'all' (sixty), "
                         "'new' (the forty added on 2026-12-07), 'every' (all hundred), 'rest' or 'other' (forty "
                         "more of the table each), 'further' (the forty added on 2026-12-07 night)")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--target-expansion", choices=("search", "union"), default=None,
                    help="SearchConfig.target_expansion (default: the CLI's)")
    ap.add_argument("--union-depth", type=int, default=None,
                    help="SearchConfig.union_depth (default: the CLI's)")
    ap.add_argument("--rescore-routes", type=int, default=None,
                    help="SearchConfig.rescore_routes: routes re-ranked with the full model, 0 for none "
                         "(default: the CLI's)")
    args = ap.parse_args(argv)
    if args.union_depth is not None and args.union_depth < 1:
        ap.error("--union-depth must be a positive integer")
    if args.rescore_routes is not None and args.rescore_routes < 0:
        ap.error("--rescore-routes must be 0 or a positive integer")
    names = checked_drug_names(ap, args.drugs)
    jobs = [(name, args.time_limit, args.target_expansion, args.union_depth, args.rescore_routes) for name in names]
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            records = list(pool.map(_packed, jobs))
    else:
        records = [_packed(j) for j in jobs]
    text = markdown(records)
    print(text)
    if args.out:
        from molx_agent.retro.search import SearchConfig

        expansion = args.target_expansion or SearchConfig.target_expansion  # None: the CLI's default
        depth = args.union_depth if args.union_depth is not None else SearchConfig.union_depth
        rescore = args.rescore_routes if args.rescore_routes is not None else SearchConfig.rescore_routes
        args.out.write_text(json.dumps({"time_limit": args.time_limit, "target_expansion": expansion,
                                        "union_depth": depth, "rescore_routes": rescore, "records": records},
                                       indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
