"""``benchmarks/mechanism_flags.py``: its readers of the USPTO-50K files and of route records (no model runs)."""

from __future__ import annotations

import csv
import gzip
import json

VENLAFAXINE = (
    "[C:10]1(=[O:11])[CH2:12][CH2:13][CH2:14][CH2:15][CH2:16]1.[CH3:1][O:2][c:3]1[cH:4][cH:5][c:6]([CH2:7][CH2:8]"
    "[Br:9])[cH:17][cH:18]1>>[CH3:1][O:2][c:3]1[cH:4][cH:5][c:6]([CH:7]([CH2:8][Br:9])[C:10]2([OH:11])[CH2:12]"
    "[CH2:13][CH2:14][CH2:15][CH2:16]2)[cH:17][cH:18]1"
)
ACETYLATION = "[CH3:1][C:2](=[O:3])[Cl:4].[NH2:5][c:6]1[cH:7][cH:8][cH:9][cH:10][cH:11]1>>" \
              "[CH3:1][C:2](=[O:3])[NH:5][c:6]1[cH:7][cH:8][cH:9][cH:10][cH:11]1"


def _write_csv(path, header, rows):
    with gzip.open(path, "wt", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        writer.writerows(rows)


def test_literature_counts_every_split_and_flag(benchmark_script, tmp_path):
    mf = benchmark_script("mechanism_flags")
    left, _, right = VENLAFAXINE.partition(">>")
    amino_acid_chloride = "[NH2:1][CH2:2][CH2:3][C:4](=[O:5])[OH:6]>>[NH2:1][CH2:2][CH2:3][C:4](=[O:5])[Cl:6]"
    _write_csv(tmp_path / "train_mapped.csv.gz", ["liu2017_split", "reactants", "product", "mapped_rxn", "confidence"],
               [["train", "", "", f"{left}>>{right}", "1"], ["train", "", "", ACETYLATION, "1"],
                ["train", "", "", amino_acid_chloride, "1"]])
    for split in ("val", "test"):
        _write_csv(tmp_path / f"gln_split_{split}.csv.gz", ["id", "class", "reactants>reagents>production"],
                   [["x", "2", ACETYLATION]])
    out = mf.literature(examples=1, data=tmp_path)
    assert out["reactions"] == {"train": 3, "val": 1, "test": 1}
    assert out["flagged"] == {"train:unactivated_carbanion": 1, "train:self_reactive_product": 1}
    assert out["examples"]["unactivated_carbanion"] == [VENLAFAXINE]


def test_route_readers_walk_trees_and_drug_steps(benchmark_script, tmp_path):
    mf = benchmark_script("mechanism_flags")
    tree = {"type": "mol", "smiles": "T", "children": [
        {"type": "reaction", "smiles": "T>>A.B", "children": [
            {"type": "mol", "smiles": "A", "children": [
                {"type": "reaction", "smiles": "A>>C", "children": [{"type": "mol", "smiles": "C", "children": []}]}]},
            {"type": "mol", "smiles": "B", "children": []}]}]}
    records = tmp_path / "r.jsonl"
    records.write_text("\n".join(json.dumps(r) for r in [
        {"meta": {}},
        {"id": "t1", "solved": True, "best_confidence": "high", "routes": [tree]},
        {"id": "t2", "solved": False, "routes": []},
    ]) + "\n")
    assert mf.routes_of_records(records) == [("t1", "high", [("T", ["A", "B"]), ("A", ["C"])])]
    drugs = tmp_path / "d.json"
    drugs.write_text(json.dumps({"records": [
        {"name": "x", "first_route": {"confidence": "medium", "steps": [{"reaction": "A.B>>T"}]}},
        {"name": "unsolved", "first_route": None},
    ]}))
    assert mf.routes_of_drugs(drugs) == [("x", "medium", [("T", ["A", "B"])])]


def test_missing_inputs_exit_2(benchmark_script, tmp_path, capsys):
    mf = benchmark_script("mechanism_flags")
    assert mf.main(["routes", "--records", str(tmp_path / "nope.jsonl")]) == 2
    assert "nope.jsonl" in capsys.readouterr().err


def test_molecules_names_self_reactive_intermediates_of_every_route(benchmark_script, tmp_path):
    mf = benchmark_script("mechanism_flags")
    amine, boc = "NCc1ccc(Cl)c(N=C=S)c1", "CC(C)(C)OC(=O)NCc1ccc(Cl)c(N=C=S)c1"
    carbamic = "O=C(O)NCc1ccccc1"  # a carbamic acid: loses CO2 as it forms

    def route(mid, leaf="B"):
        return {"type": "mol", "smiles": "T", "children": [{"type": "reaction", "smiles": f"T>>{mid}.{leaf}",
                                                            "children": [
            {"type": "mol", "smiles": mid, "children": [{"type": "reaction", "smiles": f"{mid}>>{boc}", "children": [
                {"type": "mol", "smiles": boc, "children": []}]}]},
            {"type": "mol", "smiles": leaf, "children": []}]}]}

    records = tmp_path / "r.jsonl"
    records.write_text("\n".join(json.dumps(r) for r in [
        {"meta": {}},
        {"id": "t1", "solved": True, "best_confidence": "high",
         "routes": [route(amine), route("CCO", leaf="NC(Br)c1ccccc1")]},  # an alpha-bromo amine bought
        {"id": "t2", "solved": True, "best_confidence": "high", "routes": [route(carbamic), route(amine)]},
    ]) + "\n")
    out = mf.molecules(records)
    assert out["routes"] == 4 and out["routes_with"] == {"self_reactive": 2, "unstable": 1, "unstable_leaf": 1}
    assert out["best_routes_with"] == {"self_reactive": 1, "strained": 0, "unstable": 1, "strained_leaf": 0,
                                       "unstable_leaf": 0}
    assert [(h["target"], h["smiles"]) for h in out["best_route_hits"]["self_reactive"]] == [("t1", amine)]
    assert [(h["target"], h["smiles"]) for h in out["best_route_hits"]["unstable"]] == [("t2", carbamic)]


def test_references_flag_reference_steps_and_intermediates(benchmark_script, tmp_path):
    mf = benchmark_script("mechanism_flags")
    left, _, right = VENLAFAXINE.partition(">>")
    leaf = {"smiles": "CC(=O)Cl", "synthesis_step": None}
    mid = {"smiles": "NCCC(=O)Cl", "synthesis_step": {"mapped_smiles": ACETYLATION,
                                                      "reactants": [leaf]}}
    targets = {
        "a": {"ground_truth": {"target": {"smiles": "T1", "synthesis_step": {
            "mapped_smiles": f"{left}>O>{right}", "reactants": [mid]}}}},
        "b": {"ground_truth": {"target": {"smiles": "T2", "synthesis_step": {
            "mapped_smiles": ACETYLATION.replace(">>", ">CCN(CC)CC>"), "reactants": [leaf]}}}},
    }
    path = tmp_path / "bench.json.gz"
    with gzip.open(path, "wt") as fh:
        json.dump({"targets": targets}, fh)
    out = mf.references(path, examples=2)
    assert out["routes"] == 2 and out["steps"] == 3 and out["steps_without_map"] == 0
    assert out["routes_flagged"] == {"unactivated_carbanion": 1, "self_reactive": 1}
    assert out["examples"]["self_reactive"][0]["target"] == "a"
    assert mf.main(["references", "--benchmark", str(tmp_path / "nope.json.gz")]) == 2


def test_references_run_the_route_level_checks(benchmark_script, tmp_path):
    # clonidine by Sandmeyer bromination and amination at the same carbon: a route-level amine round trip
    from tests.chem.test_mechanism import CLONIDINE_AMINATION, CLONIDINE_SANDMEYER

    mf = benchmark_script("mechanism_flags")
    aniline = {"smiles": "Nc1c(Cl)cccc1Cl", "synthesis_step": None}
    bromide = {"smiles": "Clc1cccc(Cl)c1Br", "synthesis_step": {
        "mapped_smiles": CLONIDINE_SANDMEYER.replace(">>", ">[Cu]Br>"), "reactants": [aniline]}}
    route = {"smiles": "Clc1cccc(Cl)c1NC1=NCCN1", "synthesis_step": {
        "mapped_smiles": CLONIDINE_AMINATION, "reactants": [bromide]}}
    path = tmp_path / "bench.json.gz"
    with gzip.open(path, "wt") as fh:
        json.dump({"targets": {"c": {"ground_truth": {"target": route}}, "d": {"ground_truth": {"target": bromide}}}}, fh)
    out = mf.references(path, examples=2)
    assert out["routes"] == 2 and out["steps"] == 3
    assert out["routes_flagged"] == {"amine_round_trip": 1}
    assert out["examples"]["amine_round_trip"][0]["target"] == "c"


def test_literature_counts_the_aromatic_substitutions_the_regiochemistry_rule_looks_at(benchmark_script, tmp_path):
    mf = benchmark_script("mechanism_flags")
    meta = "[CH3:1][c:2]1[cH:3][cH:4][cH:5][cH:6][cH:7]1.[Br:8][Br:9]>>[CH3:1][c:2]1[cH:3][c:4]([Br:8])[cH:5][cH:6][cH:7]1"
    para = "[CH3:1][c:2]1[cH:3][cH:4][cH:5][cH:6][cH:7]1.[Br:8][Br:9]>>[CH3:1][c:2]1[cH:3][cH:4][c:5]([Br:8])[cH:6][cH:7]1"
    _write_csv(tmp_path / "train_mapped.csv.gz", ["liu2017_split", "reactants", "product", "mapped_rxn", "confidence"],
               [["train", "", "", meta, "1"], ["train", "", "", para, "1"], ["train", "", "", ACETYLATION, "1"]])
    for split in ("val", "test"):
        _write_csv(tmp_path / f"gln_split_{split}.csv.gz", ["id", "class", "reactants>reagents>production"],
                   [["x", "2", ACETYLATION]])
    out = mf.literature(examples=1, data=tmp_path)
    assert out["aromatic_substitutions"] == {"train:benzene:bromination": 2}
    assert out["flagged"] == {"train:aromatic_regiochemistry": 1}
    assert out["examples"]["aromatic_regiochemistry"] == [meta]


def test_halogenating_counts_reagent_steps_and_kept_alcohols(benchmark_script, tmp_path):
    mf = benchmark_script("mechanism_flags")
    # POCl3 on a lactam beside a kept secondary alcohol (flagged), SOCl2 turning the only alcohol into a chloride
    # (not flagged), a step with no such reagent (not counted)
    pocl3 = ("O=P(Cl)(Cl)[Cl:9].[O:1]=[c:2]1[nH:3][cH:4][cH:5][n:6]1[CH2:7][CH:8]([OH:10])[CH3:11]>>"
             "[Cl:9][c:2]1[n:3][cH:4][cH:5][n:6]1[CH2:7][CH:8]([OH:10])[CH3:11]")
    socl2 = "O=S(Cl)[Cl:3].[CH3:1][CH2:2][OH:4]>>[CH3:1][CH2:2][Cl:3]"
    _write_csv(tmp_path / "train_mapped.csv.gz", ["liu2017_split", "reactants", "product", "mapped_rxn", "confidence"],
               [["train", "", "", pocl3, "1"], ["train", "", "", socl2, "1"], ["train", "", "", ACETYLATION, "1"]])
    for split in ("val", "test"):
        _write_csv(tmp_path / f"gln_split_{split}.csv.gz", ["id", "class", "reactants>reagents>production"], [])
    bench = tmp_path / "bench.json.gz"
    with gzip.open(bench, "wt") as fh:
        json.dump({"targets": {"a": {"ground_truth": {"target": {"smiles": "T", "synthesis_step": {
            "mapped_smiles": pocl3, "reactants": []}}}}}}, fh)
    out = mf.halogenating(examples=5, benchmarks=[bench], data=tmp_path)
    assert out["steps"] == {"uspto50k:train": 3, "bench": 1}
    assert out["steps_with_reagent"] == {"uspto50k:train:POCl3": 1, "uspto50k:train:SOCl2": 1, "bench:POCl3": 1}
    assert out["flagged"] == {"uspto50k:train:POCl3": 1, "bench:POCl3": 1}
    assert out["groups"] == {"secondary_alcohol": 2}
    assert mf.main(["halogenating", "--benchmark", str(tmp_path / "nope.json.gz")]) == 2


def test_selectivity_counts_warned_routes_by_side_and_reranks_offline(benchmark_script, tmp_path, capsys):
    from types import SimpleNamespace

    mf = benchmark_script("mechanism_flags")

    def route(rank, score, product, reactants):
        return {"type": "mol", "smiles": product, "metadata": {"rank": rank, "score": score, "issues": []},
                "children": [{"type": "reaction", "smiles": f"{product}>>{'.'.join(reactants)}", "children": [
                    {"type": "mol", "smiles": r, "children": []} for r in reactants]}]}

    # rank 1: a nitro reduction beside an azide (warned); rank 2, the reference: one beside a nitrile (a note)
    warned = route(1, 5.0, "Nc1ccc(CN=[N+]=[N-])cc1", ["O=[N+]([O-])c1ccc(CN=[N+]=[N-])cc1"])
    noted = route(2, 6.0, "N#Cc1ccc(N)cc1", ["N#Cc1ccc([N+](=O)[O-])cc1"])
    records = tmp_path / "r.jsonl"
    records.write_text("\n".join(json.dumps(r) for r in [
        {"meta": {}}, {"id": "t1", "match_rank": 2, "routes": [warned, noted]},
        {"id": "t2", "match_rank": None, "routes": [warned]}]) + "\n")

    class Namer:
        def prediction(self, product, reactants):
            return SimpleNamespace(reaction_name="Nitro Reduction")

    out = mf.selectivity_records(records, Namer(), penalty=1.5)
    c = out["counts"]
    assert c["targets"] == 1 and c["routes_reference"] == 1 and c["routes_other"] == 1
    assert c["warned_other"] == 1 and c["warned_reference"] == 0 and c["reagent_choice_reference"] == 1
    assert c["top1_recorded"] == 0 and c["top1_reranked"] == 1 and out["reference_moved"] == [("t1", 2, 1)]
    assert out["by_code_reaction_group"] == {"incompatible_group:nitro_reduction:azide": 1,
                                             "reagent_choice:nitro_reduction:nitrile": 1}
    assert mf.main(["selectivity"]) == 2 and "--uspto" in capsys.readouterr().err
