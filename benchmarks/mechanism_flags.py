"""How often the route judgement's mechanism flags fire (``molx_agent.chem.mechanism.step_mechanism``).

Four questions:

- ``literature``: on the recorded USPTO-50K reactions (train, val and test; the data set's own atom maps), a flag
  is a false alarm unless the record is mis-mapped. Prints per split and flag the count and the first examples.
- ``routes``: on the best route of each solved target of ``benchmarks/multistep.py`` records (``--records``), or
  the first route of each drug of ``benchmarks/drug_routes.py`` output (``--drugs``). The records keep reactions
  without atom maps, so each step is re-mapped by the packaged single-step model that could have proposed it (the
  full model first, then the search's view; a step neither proposes among its 50 is counted ``unmapped``). The
  route-level ``carried_group`` (a group bought, carried and removed: ``chem.mechanism.carried_groups``) is counted
  too.

- ``molecules``: the molecule checks that need no atom map (``self_reactive``: a free amine beside an acyl halide
  or heterocumulene, an alcohol or thiol beside an acyl halide; ``strained_ring``; ``unstable_group``: a carbamic
  acid, an alpha-haloamine, an acyl nitro group) on every intermediate of every returned route of ``--records``
  (JSONL or ``.jsonl.gz``), and of the best routes; the last two also on every leaf (``strained_leaf``,
  ``unstable_leaf``). The ``literature`` mode also counts the USPTO-50K products that ``self_reactive`` and
  ``unstable_group`` name (``self_reactive_product``, ``unstable_product``): a literature
  product is isolable, so each is a false alarm or a record drawing a salt or a work-up's species.

- ``references``: the same flags on the literature routes of a RetroCast benchmark (``--benchmark``, e.g.
  ``ref-lin-600.json.gz``): every reference step with its recorded atom map, every reference intermediate, and the
  route-level ``carried_group`` and ``amine_round_trip`` (``chem.mechanism.amine_round_trips``) over each route's
  mapped steps.
  A reference route is a published one, so each hit is a false alarm, a salt written as the free base or a record's
  omission.

- ``organometallic``: on the recorded USPTO-50K reactions, the steps with an organometallic precursor (RLi, RMgX,
  RZnX, a cuprate: ``chem.fg_warnings.has_organometallic``) and how many keep a carboxylic acid, alcohol, phenol,
  primary amine or thiol that would protonate it (``organometallic_quenchers``, an ``incompatible_group`` warning of
  the route judgement): recorded reactions that do so anyway use excess reagent or a dianion.

- ``halogenating``: on the recorded USPTO-50K reactions and on the reference steps of RetroCast benchmarks
  (``--benchmark``, repeatable), the steps with a deoxyhalogenating reagent among the precursors (POCl3, POBr3, PCl5,
  PCl3, PBr3, SOCl2, SOBr2, oxalyl chloride: ``chem.fg_warnings.halogenating_reagent``) and how many keep a free
  aliphatic alcohol or thiol it would attack (``halogenating_reagent_conflicts``, an ``incompatible_group`` warning
  of the route judgement): a published step that does so is a false alarm or a record's omission.

- ``selectivity``: the route judgement's selectivity warnings (``chem.fg_warnings.step_selectivity``:
  ``incompatible_group`` and ``competing_reaction``, which cost a route ``SearchConfig.selectivity_penalty`` per
  step, and the ``reagent_choice`` note) where they should be rare and where they should not. ``--uspto N``: the
  recorded reactions of the first N USPTO-50K validation products (a seed-7 shuffle), each named as the
  product names it (the default model's prediction with the recorded reactants; a reaction outside its 50 is
  ``unnamed``): a recorded reaction worked, so a warning there is a false alarm or a real protection-free
  selectivity. ``--records R``: every returned route of each target whose routes include the reference route
  (``match_rank``), each step named as the search names it (the search model's prediction with the same precursors,
  else the full model's): routes with a warning among the reference-matching routes and among the others, and the
  reference route's rank when the returned routes are re-ranked offline (tier, then the record's route score plus
  ``--penalty`` per warned step; meaningful for records whose scores carry no penalty, such as c341134's).

``literature`` and ``references`` also count the steps ``aromatic_regiochemistry`` looks at
(``aromatic_substitutions``: electrophilic substitutions at an aromatic C-H, by ring, benzene or other, and kind),
the denominator of its rate.

Usage::

    uv run python benchmarks/mechanism_flags.py literature [--examples 5] [--out OUT.json]
    uv run python benchmarks/mechanism_flags.py routes --records R.jsonl[.gz] [--drugs D.json] [--out OUT.json]
    uv run python benchmarks/mechanism_flags.py molecules --records R.jsonl[.gz] [--out OUT.json]
    uv run python benchmarks/mechanism_flags.py references [--benchmark B.json.gz] [--examples 5] [--out OUT.json]
    uv run python benchmarks/mechanism_flags.py organometallic [--examples 5] [--out OUT.json]
    uv run python benchmarks/mechanism_flags.py halogenating [--benchmark B.json.gz ...] [--examples 5] [--out OUT.json]
    uv run python benchmarks/mechanism_flags.py selectivity [--uspto N] [--records R.jsonl[.gz] ...] [--penalty 1.5]
        [--examples 5] [--out OUT.json]
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from molx_agent.chem.mechanism import (  # noqa: E402
    amine_round_trips,
    aromatic_substitutions,
    carried_groups,
    self_reactive,
    step_mechanism,
    strained_ring,
    unstable_group,
)
from molx_agent.io_utils import atomic_write_json  # noqa: E402

DATA = REPO.parent / "shared" / "data" / "uspto50k"
#: The molecule checks that need no atom map, by the name the outputs count them under.
MOLECULE_CHECKS = {"self_reactive": self_reactive, "strained": strained_ring, "unstable": unstable_group}


def literature_reactions(data: Path = DATA) -> Iterator[tuple[str, str]]:
    """(split, ``reactants>>product`` with the data set's atom map) for every USPTO-50K reaction."""
    with gzip.open(data / "train_mapped.csv.gz", "rt", newline="") as fh:
        for row in csv.DictReader(fh):
            reactants, _, product = row["mapped_rxn"].split(">")
            yield "train", f"{reactants}>>{product}"
    for split in ("val", "test"):
        with gzip.open(data / f"gln_split_{split}.csv.gz", "rt", newline="") as fh:
            for row in csv.DictReader(fh):
                reactants, _, product = row["reactants>reagents>production"].split(">")
                yield split, f"{reactants}>>{product}"


def literature(examples: int, data: Path = DATA) -> dict[str, Any]:
    n: Counter[str] = Counter()
    fired: Counter[str] = Counter()
    judged: Counter[str] = Counter()
    shown: dict[str, list[str]] = {}
    for split, rxn in literature_reactions(data):
        n[split] += 1
        judged.update(f"{split}:{s['ring']}:{s['kind']}" for s in aromatic_substitutions(rxn))
        codes = {f["code"] for f in step_mechanism(rxn)}
        product = rxn.partition(">>")[2]
        if self_reactive(product):  # the map numbers do not change what the SMARTS match
            codes.add("self_reactive_product")
        if unstable_group(product):
            codes.add("unstable_product")
        for code in sorted(codes):
            fired[f"{split}:{code}"] += 1
            shown.setdefault(code, [])
            if len(shown[code]) < examples:
                shown[code].append(rxn)
    return {"reactions": dict(n), "flagged": dict(fired), "aromatic_substitutions": dict(judged), "examples": shown}


def organometallic(examples: int, data: Path = DATA) -> dict[str, Any]:
    """Recorded USPTO-50K steps with an organometallic precursor, and those that keep a group protonating it."""
    import re

    from rdkit import Chem

    from molx_agent.chem.fg_warnings import (
        grignard_electrophiles,
        has_organometallic,
        organometallic_quenchers,
    )

    metal = re.compile(r"\[(?:Li|Mg|Zn|Cu|Na|K|Cs)[^a-z]")
    n: Counter[str] = Counter()
    with_metal: Counter[str] = Counter()
    # per rule: steps flagged by split, groups named, example reactions
    rules = {"quenchers": organometallic_quenchers, "grignard_electrophiles": grignard_electrophiles}
    fired: dict[str, Counter[str]] = {r: Counter() for r in rules}
    groups: dict[str, Counter[str]] = {r: Counter() for r in rules}
    shown: dict[str, list[str]] = {r: [] for r in rules}
    for split, rxn in literature_reactions(data):
        n[split] += 1
        if not metal.search(rxn):  # a cheap filter before the SMARTS
            continue
        reactants, _, product = rxn.partition(">>")
        mols = [Chem.MolFromSmiles(x) for x in reactants.split(".")]
        if any(m is None for m in mols) or Chem.MolFromSmiles(product) is None:
            continue
        precursors = reactants.split(".")
        if not has_organometallic(precursors):
            continue
        with_metal[split] += 1
        for rule, check in rules.items():
            found = check(precursors, product)
            if found:
                fired[rule][split] += 1
                groups[rule].update(found)
                if len(shown[rule]) < examples:
                    shown[rule].append(rxn)
    return {"reactions": dict(n), "organometallic_steps": dict(with_metal), "flagged": dict(fired["quenchers"]),
            "groups": dict(groups["quenchers"]), "examples": shown["quenchers"],
            # a Grignard or organolithium reagent beside an aldehyde or ketone the product keeps
            "grignard_electrophiles_flagged": dict(fired["grignard_electrophiles"]),
            "grignard_electrophiles_groups": dict(groups["grignard_electrophiles"]),
            "grignard_electrophiles_examples": shown["grignard_electrophiles"]}


def halogenating(examples: int, benchmarks: list[Path], data: Path = DATA) -> dict[str, Any]:
    """Steps with a deoxyhalogenating reagent among the precursors, on USPTO-50K and on reference routes (each distinct
    mapped step once per benchmark), and those that keep a free aliphatic alcohol or thiol the reagent attacks."""
    from molx_agent.chem.fg_warnings import halogenating_reagent, halogenating_reagent_conflicts
    from molx_agent.chem.utils import canonical
    from molx_agent.errors import ChemistryError

    def steps() -> Iterator[tuple[str, str]]:
        for split, rxn in literature_reactions(data):
            yield f"uspto50k:{split}", rxn
        for path in benchmarks:
            with gzip.open(path, "rt", encoding="utf-8") as fh:
                targets = json.load(fh)["targets"]
            seen: set[str] = set()
            for target in targets.values():
                tree = (target.get("ground_truth") or {}).get("target")
                for _, _, mapped, _ in _reference_nodes(tree) if tree else ():
                    if mapped and mapped not in seen:
                        seen.add(mapped)
                        yield path.name.split(".")[0], mapped

    n: Counter[str] = Counter()
    with_reagent: Counter[str] = Counter()
    fired: Counter[str] = Counter()
    groups: Counter[str] = Counter()
    shown: list[dict[str, str]] = []
    for source, rxn in steps():
        n[source] += 1
        if "Cl" not in rxn and "Br" not in rxn:
            continue  # a cheap filter before parsing: every reagent holds Cl or Br
        reactants, _, product = rxn.partition(">>")
        try:
            precursors, product = [canonical(x) for x in reactants.split(".")], canonical(product)
        except ChemistryError:
            continue  # an unparsable record: counted among the steps, judged by no rule
        reagent = halogenating_reagent(precursors)
        if reagent is None:
            continue
        with_reagent[f"{source}:{reagent}"] += 1
        kept = halogenating_reagent_conflicts(precursors, product)
        if kept:
            fired[f"{source}:{reagent}"] += 1
            groups.update(kept)
            if len(shown) < examples:
                shown.append({"source": source, "reaction": rxn})
    return {"steps": dict(n), "steps_with_reagent": dict(with_reagent), "flagged": dict(fired),
            "groups": dict(groups), "examples": shown}


class StepMapper:
    """The atom map of a recorded step: the packaged model's prediction with the same precursors."""

    def __init__(self) -> None:
        from molx_agent.retro.single_step import load_single_step_model, search_model

        full = load_single_step_model()
        self.models = (("full", full), ("search", search_model(full)))
        self._cache: dict[tuple[str, str], list[Any]] = {}

    def _predictions(self, name: str, model: Any, product: str) -> list[Any]:
        key = (name, product)
        if key not in self._cache:
            try:
                self._cache[key] = list(model.predict(product, top_k=50))
            except Exception:  # noqa: BLE001 - a product the model refuses cannot be mapped or named
                self._cache[key] = []
        return self._cache[key]

    def mapped(self, product: str, reactants: list[str]) -> str | None:
        want = tuple(sorted(reactants))
        for name, model in self.models:
            for pred in self._predictions(name, model, product):
                if tuple(sorted(pred.reactants)) == want and pred.mapped_reaction:
                    return pred.mapped_reaction
        return None

    def prediction(self, product: str, reactants: list[str]) -> Any:
        """The packaged model's prediction with these precursors, the search's view first (the name a search step
        carries), then the full model's; ``None`` when neither proposes them."""
        want = tuple(sorted(reactants))
        for name, model in sorted(self.models, key=lambda m: m[0] != "search"):
            for pred in self._predictions(name, model, product):
                if tuple(sorted(pred.reactants)) == want:
                    return pred
        return None


def _tree_steps(tree: dict[str, Any]) -> Iterator[tuple[str, list[str]]]:
    """(product, precursors) of every reaction of an AiZynthFinder-style tree (reactions written retro)."""
    for child in tree.get("children", []):
        if child.get("type") == "reaction":
            product, _, reactants = child["smiles"].partition(">>")
            yield product, reactants.split(".")
            for mol in child.get("children", []):
                yield from _tree_steps(mol)


def _judge_routes(routes: list[tuple[str, Any, list[tuple[str, list[str]]]]], mapper: StepMapper) -> dict[str, Any]:
    flagged_routes: Counter[str] = Counter()
    n_steps = unmapped = 0
    hits = []
    for name, confidence, steps in routes:
        codes: set[str] = set()
        mapped_steps = []
        for product, reactants in steps:
            n_steps += 1
            mapped = mapper.mapped(product, reactants)
            mapped_steps.append((product, list(reactants), mapped or ""))
            if mapped is None:
                unmapped += 1
                continue
            for flag in step_mechanism(mapped):
                codes.add(flag["code"])
                hits.append({"target": name, "code": flag["code"], "confidence_before": confidence,
                             "mapped_reaction": mapped})
        for carried in carried_groups(mapped_steps) if len(mapped_steps) > 1 else ():
            codes.add("carried_group")
            hits.append({"target": name, "code": "carried_group", "confidence_before": confidence,
                         "mapped_reaction": mapped_steps[carried["step"]][2], "leaf": carried["leaf"]})
        for code in codes:
            flagged_routes[code] += 1
    return {"routes": len(routes), "steps": n_steps, "unmapped_steps": unmapped,
            "routes_flagged": dict(flagged_routes), "hits": hits}


def routes_of_records(path: Path) -> list[tuple[str, Any, list[tuple[str, list[str]]]]]:
    """(target, best-route confidence, steps) of every solved target of a records file (JSONL or ``.jsonl.gz``)."""
    from benchmarks.multistep import read_records  # namespace package: the repository is on the path

    out = []
    for rec in read_records(path)[1]:
        if "id" not in rec or not rec.get("solved") or not rec.get("routes"):
            continue
        out.append((rec["id"], rec.get("best_confidence"), list(_tree_steps(rec["routes"][0]))))
    return out


def routes_of_drugs(path: Path) -> list[tuple[str, Any, list[tuple[str, list[str]]]]]:
    out = []
    for rec in json.loads(path.read_text())["records"]:
        first = rec.get("first_route") or {}
        steps = []
        for step in first.get("steps", []):
            reactants, _, product = step["reaction"].partition(">>")
            steps.append((product, reactants.split(".")))
        if steps:
            out.append((rec["name"], first.get("confidence"), steps))
    return out


def _intermediates(tree: dict[str, Any], root: bool = True) -> Iterator[str]:
    """The SMILES of every made molecule of an AiZynthFinder-style tree below its target."""
    if not root and any(child.get("type") == "reaction" for child in tree.get("children", [])):
        yield tree["smiles"]
    for child in tree.get("children", []):
        for mol in child.get("children", []):
            yield from _intermediates(mol, root=False)


def _leaves(tree: dict[str, Any]) -> Iterator[str]:
    """The SMILES of every leaf (bought molecule) of an AiZynthFinder-style tree."""
    reactions = [child for child in tree.get("children", []) if child.get("type") == "reaction"]
    if not reactions:
        yield tree["smiles"]
    for child in reactions:
        for mol in child.get("children", []):
            yield from _leaves(mol)


#: The molecule checks that also judge a bought leaf (the route judge's ``strained_molecule``): a leaf that cannot be
#: isolated is no more sold than made.
LEAF_CHECKS = {"strained_leaf": strained_ring, "unstable_leaf": unstable_group}


def _route_molecules(tree: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(check name, SMILES) for every check of :data:`MOLECULE_CHECKS` on every intermediate of a route and every
    check of :data:`LEAF_CHECKS` on every leaf."""
    for smiles in _intermediates(tree):
        for name in MOLECULE_CHECKS:
            yield name, smiles
    for smiles in _leaves(tree):
        for name in LEAF_CHECKS:
            yield name, smiles


def molecules(path: Path) -> dict[str, Any]:
    """``self_reactive``, ``strained_ring`` and ``unstable_group`` on the intermediates of every returned route of a
    records file, and the last two on its leaves."""
    from benchmarks.multistep import read_records  # namespace package: the repository is on the path

    _meta, records = read_records(path)
    checks = {**MOLECULE_CHECKS, **LEAF_CHECKS}
    n_routes = 0
    routes_hit: Counter[str] = Counter()
    best_hit: dict[str, list[dict[str, str]]] = {name: [] for name in checks}
    seen: dict[tuple[str, str], str | None] = {}
    for rec in records:
        for rank, tree in enumerate(rec.get("routes") or []):
            n_routes += 1
            found: dict[str, tuple[str, str]] = {}
            for name, smiles in _route_molecules(tree):
                if name in found:
                    continue
                if (name, smiles) not in seen:
                    seen[name, smiles] = checks[name](smiles)
                if seen[name, smiles]:
                    found[name] = (smiles, str(seen[name, smiles]))
            for name, (smiles, what) in found.items():
                routes_hit[name] += 1
                if rank == 0:
                    best_hit[name].append({"target": str(rec["id"]), "smiles": smiles, "what": what,
                                           "confidence_before": rec.get("best_confidence")})
    return {"targets": len(records), "solved": sum(bool(r.get("solved")) for r in records), "routes": n_routes,
            "routes_with": dict(routes_hit), "best_routes_with": {k: len(v) for k, v in best_hit.items()},
            "best_route_hits": best_hit}


BENCHMARK = REPO.parent / "shared" / "data" / "multistep" / "benchmarks" / "ref-lin-600.json.gz"


def _reference_nodes(node: dict[str, Any], root: bool = True) -> Iterator[tuple[str, bool, str | None, bool]]:
    """(SMILES, whether a step makes it, that step mapped or None, whether it is an intermediate) of every molecule
    of a RetroCast route tree."""
    step = node.get("synthesis_step")
    mapped = None
    if step:
        rsmi = str(step.get("mapped_smiles") or "")
        if rsmi.count(">") == 2:
            reactants, _, product = rsmi.split(">")
            mapped = f"{reactants}>>{product}"
    yield node["smiles"], bool(step), mapped, bool(step) and not root
    for child in (step or {}).get("reactants") or []:
        yield from _reference_nodes(child, root=False)


#: The route-level checks of the route judgement, over a route's mapped steps: a group bought, carried and removed
#: (``carried_group``), an aniline's nitrogen taken off and a nitrogen put back on the same carbon
#: (``amine_round_trip``).
ROUTE_CHECKS = {"carried_group": carried_groups, "amine_round_trip": amine_round_trips}


def references(path: Path, examples: int) -> dict[str, Any]:
    """Mechanism flags on every mapped step and molecule checks on every intermediate of a benchmark's reference
    routes."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        targets = json.load(fh)["targets"]
    n_routes = n_steps = unmapped = 0
    routes_hit: Counter[str] = Counter()
    judged: Counter[str] = Counter()
    shown: dict[str, list[dict[str, str]]] = {}
    for tid, target in targets.items():
        tree = (target.get("ground_truth") or {}).get("target")
        if not tree:
            continue
        n_routes += 1
        codes: dict[str, str] = {}
        for smiles, made, mapped, intermediate in _reference_nodes(tree):
            if made:
                n_steps += mapped is not None
                unmapped += mapped is None
                judged.update(f"{s['ring']}:{s['kind']}" for s in aromatic_substitutions(mapped or ""))
            for flag in step_mechanism(mapped) if mapped else []:
                codes.setdefault(flag["code"], mapped)
            if intermediate:
                for name, check in MOLECULE_CHECKS.items():
                    what = check(smiles)
                    if what:
                        codes.setdefault(name, f"{smiles}: {what}")
        # the route-level checks over the route's mapped steps (product, reactants (unread), mapped reaction)
        steps = [(smi, [], mapped) for smi, made, mapped, _ in _reference_nodes(tree) if made and mapped]
        if len(steps) > 1:
            for name, check in ROUTE_CHECKS.items():
                for hit in check(steps):
                    codes.setdefault(name, steps[hit["step"]][2])
        for code, where in codes.items():
            routes_hit[code] += 1
            shown.setdefault(code, [])
            if len(shown[code]) < examples:
                shown[code].append({"target": str(tid), "where": where})
    return {"routes": n_routes, "steps": n_steps, "steps_without_map": unmapped,
            "routes_flagged": dict(routes_hit), "aromatic_substitutions": dict(judged), "examples": shown}


def _judge_selectivity(precursors: list[str], product: str, name: str | None,
                       counts: Counter[str]) -> tuple[list[dict[str, Any]], bool, bool]:
    """``step_selectivity`` of one step named ``name``, counted in ``counts`` by code, reaction type and groups;
    the entries, whether one costs the route (``PENALISED_SELECTIVITY_ISSUES``) and whether one is a reagent note."""
    from molx_agent.chem.fg_warnings import normalize_reaction_type, step_selectivity
    from molx_agent.retro.judge import PENALISED_SELECTIVITY_ISSUES

    found = step_selectivity(precursors, product, name)
    key = normalize_reaction_type(name) or "-"
    for c in found:
        counts[f"{c['code']}:{key}:{'+'.join(c['groups'])}"] += 1
    codes = {c["code"] for c in found}
    return found, bool(codes & PENALISED_SELECTIVITY_ISSUES), "reagent_choice" in codes


def selectivity_uspto(n: int, examples: int, data: Path = DATA) -> dict[str, Any]:
    """Selectivity warnings on the recorded reactions of the first ``n`` USPTO-50K validation products."""
    import random

    from benchmarks.single_step import SPLITS, load_split  # the single-step benchmark's reader
    from molx_agent.retro.single_step import TemplateKNNModel

    rows = load_split(SPLITS["val"])
    random.Random(7).shuffle(rows)
    model = TemplateKNNModel()
    counts: Counter[str] = Counter()
    by_kind: Counter[str] = Counter()
    shown: list[dict[str, Any]] = []
    for row in rows[:n]:
        counts["reactions"] += 1
        pred = next((p for p in model.predict(row["product"], top_k=50) if tuple(p.reactants) == row["truth"]), None)
        if pred is None:
            counts["unnamed"] += 1
            continue
        found, warned, noted = _judge_selectivity(list(pred.reactants), pred.product, pred.reaction_name, by_kind)
        counts["named"] += 1
        counts["warned"] += warned
        counts["reagent_choice"] += noted
        if found and len(shown) < examples:
            shown.append({"reaction": f"{'.'.join(pred.reactants)}>>{pred.product}", "name": pred.reaction_name,
                          "found": [(c["code"], c["groups"]) for c in found]})
    return {"counts": dict(counts), "by_code_reaction_group": dict(by_kind.most_common()), "examples": shown}


def selectivity_records(path: Path, mapper: StepMapper, penalty: float) -> dict[str, Any]:
    """Selectivity warnings on the returned routes of the targets whose routes include the reference route."""
    from benchmarks.multistep import read_records  # namespace package: the repository is on the path
    from molx_agent.retro.judge import route_rank_tier

    counts: Counter[str] = Counter()
    by_kind: Counter[str] = Counter()
    moved: list[tuple[str, int, int]] = []
    for rec in read_records(path)[1]:
        match = rec.get("match_rank")
        if "id" not in rec or match is None or not rec.get("routes"):
            continue
        counts["targets"] += 1
        keys = []
        for i, route in enumerate(rec["routes"]):
            meta = route.get("metadata") or {}
            side = "reference" if meta.get("rank", i + 1) == match else "other"
            warned = notes = 0
            for product, reactants in _tree_steps(route):
                pred = mapper.prediction(product, reactants)
                name = pred.reaction_name if pred is not None else None
                counts["unnamed_steps"] += pred is None
                _, step_warned, step_noted = _judge_selectivity(reactants, product, name, by_kind)
                warned += step_warned
                notes += step_noted
            counts[f"routes_{side}"] += 1
            counts[f"warned_{side}"] += warned > 0
            counts[f"reagent_choice_{side}"] += notes > 0
            keys.append((route_rank_tier(meta.get("issues") or []), float(meta.get("score") or 0.0) + penalty * warned,
                         i, side))
        ranked = [k[3] for k in sorted(keys)]
        if "reference" in ranked:
            new = ranked.index("reference") + 1
            for k in (1, 3, 5, 10):
                counts[f"top{k}_reranked"] += new <= k
                counts[f"top{k}_recorded"] += match <= k
            if new != match:
                moved.append((rec["id"], match, new))
    return {"counts": dict(counts), "by_code_reaction_group": dict(by_kind.most_common()),
            "reference_moved": moved}


def _brief(res: dict[str, Any]) -> dict[str, Any]:
    """A routes result for the terminal: the counts, and (target, flag, confidence before) per hit."""
    out = {k: v for k, v in res.items() if k != "hits"}
    out["flagged"] = [(h["target"], h["code"], h["confidence_before"]) for h in res["hits"]]
    return out


def _report(compute: Any, out: Path | None, what: str) -> int:
    """Print ``compute()``'s result as JSON and write it to ``out``; 2 with a message when ``what`` cannot be read."""
    try:
        result = compute()
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"cannot read {what}: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=1))
    if out:
        atomic_write_json(out, result)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    lit = sub.add_parser("literature", help="fire rate on the recorded USPTO-50K reactions")
    lit.add_argument("--examples", type=int, default=5)
    lit.add_argument("--out", type=Path)
    rts = sub.add_parser("routes", help="fire rate on benchmark routes")
    rts.add_argument("--records", type=Path, action="append", default=[])
    rts.add_argument("--drugs", type=Path, action="append", default=[])
    rts.add_argument("--out", type=Path)
    mols = sub.add_parser("molecules", help="self-reactive and strained intermediates of benchmark routes")
    mols.add_argument("--records", type=Path, action="append", default=[])
    mols.add_argument("--out", type=Path)
    refs = sub.add_parser("references", help="fire rate on a benchmark's literature routes")
    refs.add_argument("--benchmark", type=Path, default=BENCHMARK)
    refs.add_argument("--examples", type=int, default=5)
    refs.add_argument("--out", type=Path)
    orgm = sub.add_parser("organometallic", help="organometallic steps of USPTO-50K that keep a protic group")
    orgm.add_argument("--examples", type=int, default=5)
    orgm.add_argument("--out", type=Path)
    halo = sub.add_parser("halogenating", help="deoxyhalogenation steps that keep a free alcohol or thiol")
    halo.add_argument("--benchmark", type=Path, action="append", default=[])
    halo.add_argument("--examples", type=int, default=5)
    halo.add_argument("--out", type=Path)
    sel = sub.add_parser("selectivity", help="selectivity warnings on recorded reactions and on returned routes")
    sel.add_argument("--uspto", type=int, default=0, help="recorded reactions of the first N validation products")
    sel.add_argument("--records", type=Path, action="append", default=[])
    sel.add_argument("--penalty", type=float, default=1.5)
    sel.add_argument("--examples", type=int, default=5)
    sel.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    if args.mode == "selectivity":
        missing = [str(p) for p in args.records if not p.is_file()]
        if missing or not (args.records or args.uspto > 0):
            print(f"give --uspto N > 0 and/or --records files that exist (missing: {', '.join(missing) or 'none'})",
                  file=sys.stderr)
            return 2

        def compute() -> dict[str, Any]:
            out: dict[str, Any] = {}
            if args.uspto > 0:
                out["uspto50k_val"] = selectivity_uspto(args.uspto, args.examples)
            if args.records:
                mapper = StepMapper()
                for path in args.records:
                    out[str(path)] = selectivity_records(path, mapper, args.penalty)
            return out

        return _report(compute, args.out, "the inputs")
    if args.mode == "halogenating":
        missing = [str(p) for p in args.benchmark if not p.is_file()]
        if missing or not (DATA / "train_mapped.csv.gz").is_file():
            print(f"input not found: {', '.join(missing) or DATA}", file=sys.stderr)
            return 2
        return _report(lambda: halogenating(args.examples, args.benchmark), args.out, "a benchmark")
    if args.mode == "references":
        if not args.benchmark.is_file():
            print(f"benchmark file not found: {args.benchmark}", file=sys.stderr)
            return 2
        return _report(lambda: references(args.benchmark, args.examples), args.out, f"benchmark {args.benchmark}")
    if args.mode == "molecules":
        missing = [str(p) for p in args.records if not p.is_file()]
        if missing or not args.records:
            print(f"give --records files that exist (missing: {', '.join(missing) or 'none given'})", file=sys.stderr)
            return 2
        result = {str(path): molecules(path) for path in args.records}
        print(json.dumps(result, indent=1))
        if args.out:
            atomic_write_json(args.out, result)
        return 0
    if args.mode in ("literature", "organometallic"):
        if not (DATA / "train_mapped.csv.gz").is_file():
            print(f"USPTO-50K files not found under {DATA}", file=sys.stderr)
            return 2
        result: dict[str, Any] = (literature if args.mode == "literature" else organometallic)(args.examples)
    else:
        missing = [str(p) for p in [*args.records, *args.drugs] if not p.is_file()]
        if missing or not (args.records or args.drugs):
            print(f"give --records and/or --drugs files that exist (missing: {', '.join(missing) or 'none given'})",
                  file=sys.stderr)
            return 2
        mapper = StepMapper()
        result = {}
        for path in args.records:
            result[str(path)] = _judge_routes(routes_of_records(path), mapper)
        for path in args.drugs:
            result[str(path)] = _judge_routes(routes_of_drugs(path), mapper)
    summary = result if args.mode != "routes" else {path: _brief(res) for path, res in result.items()}
    print(json.dumps(summary, indent=1))
    if args.out:
        atomic_write_json(args.out, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
