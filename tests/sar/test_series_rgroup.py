"""Series split, core choice (trivial cores rejected), R-groups, scans, OCAT, matched pairs."""

from __future__ import annotations

import pytest
from rdkit import Chem

from molx_agent.errors import ChemistryError
from molx_agent.sar.mmp import find_matched_pairs
from molx_agent.sar.ocat import identify_ocat_series
from molx_agent.sar.rgroup import decompose_series, detect_single_point_scans, substituent_label
from molx_agent.sar.series import build_series, choose_core, parse_core, trivial_core_reason
from tests.sar.sar_data import ANILIDES

QUINAZOLINES = [f"COc1cc2ncnc(N{r})c2cc1OC" for r in
                ("c3ccc(Cl)cc3", "c3ccc(F)cc3", "c3ccc(Br)cc3", "c3ccccc3", "c3ccc(C)cc3", "c3cccc(Cl)c3")]
SULFONAMIDES = [f"NS(=O)(=O)c1ccc(C(=O)NCc3ccc{r}cc3)cc1" for r in
                ("(Cl)", "(F)", "(Br)", "", "(C)", "(OC)")]


def _mols(smiles):
    return [Chem.MolFromSmiles(s) for s in smiles]


def test_two_chemotypes_become_two_series_with_their_own_cores():
    series, unassigned = build_series(_mols(QUINAZOLINES + SULFONAMIDES), min_series_size=5)
    assert len(series) == 2 and unassigned == []
    members = sorted(sorted(s.members) for s in series)
    assert members == [list(range(6)), list(range(6, 12))]
    for s in series:
        assert s.core_smiles and s.core_atoms >= 8 and s.coverage == 1.0


def test_a_lone_ring_is_rejected_as_a_core():
    benzene = Chem.MolFromSmiles("c1ccccc1")
    assert trivial_core_reason(benzene, median_atoms=25) == "a lone ring"
    assert "heavy atoms" in trivial_core_reason(Chem.MolFromSmiles("CCO"), 20)
    quinazoline_core = Chem.MolFromSmiles("COc1cc2ncnc(N)c2cc1OC")
    assert trivial_core_reason(quinazoline_core, 22) is None


def test_a_lone_ring_scaffold_does_not_hide_the_larger_common_core():
    # every anilide's Murcko scaffold is benzene, but the series shares the whole acetanilide
    core = choose_core(_mols([s for _, s, _ in ANILIDES]))
    assert core["source"] == "mcs" and core["smiles"] == "CC(=O)Nc1ccccc1" and core["coverage"] == 1.0
    assert [(r["source"], r["smiles"]) for r in core["rejected"]] == [("murcko", "c1ccccc1")]
    assert "lone ring" in core["rejected"][0]["reason"]


def test_choose_core_never_returns_a_trivial_core_for_a_diverse_set():
    diverse = _mols(["c1ccccc1CCN", "c1ccccc1OC(=O)C", "c1ccccc1C#N", "c1ccccc1S(=O)(=O)N", "Clc1ccccc1CCCCO"])
    core = choose_core(diverse)
    if core["query"] is not None:
        assert trivial_core_reason(core["query"], core["median_atoms"]) is None
    else:
        assert core["rejected"] and all(r["reason"] for r in core["rejected"])


def test_user_core_defines_the_series_and_bad_cores_are_errors():
    mols = _mols([s for _, s, _ in ANILIDES] + ["c1ccc2ccccc2c1"])
    series, unassigned = build_series(mols, user_core="O=C(C)Nc1ccccc1")
    assert len(series) == 1 and series[0].core_source == "user" and unassigned == [9]
    with pytest.raises(ChemistryError) as exc:
        parse_core("not(a core")
    assert exc.value.code == "invalid_core"
    with pytest.raises(ChemistryError) as exc:
        build_series(mols, user_core="c1ccncc1P")
    assert exc.value.code == "core_not_found"


@pytest.fixture
def anilide_table():
    smiles = [s for _, s, _ in ANILIDES]
    ids = [i for i, _, _ in ANILIDES]
    import math

    p = [6 - math.log10(float(v)) for _, _, v in ANILIDES]
    mols = _mols(smiles)
    core = Chem.MolFromSmarts("C(=O)Nc1ccccc1")
    return decompose_series("S1", core, mols, list(range(len(mols))), ids, p, [True] * len(mols))


def test_rgroup_table_positions_and_stats(anilide_table):
    t = anilide_table
    assert len(t.rows) == 9 and t.unmatched == []
    assert len(t.positions) == 2  # the acyl group and the para substituent
    para = next(pos for pos in t.positions if "*Cl" in set(t.rows[pos]))
    stats = {s["substituent"]: s for s in t.position_stats(para)}
    assert stats["*Cl"]["n"] == 2 and stats["*Cl"]["mean"] == pytest.approx((8.0 + 7.301) / 2, abs=1e-3)
    assert t.position_stats(para)[0]["substituent"] in ("*Cl", "*F", "*Br")  # halogens are the potent ones
    summary = {s["position"]: s for s in t.site_summary()}
    assert summary[para]["n_substituents"] == 6


def test_single_point_scans_and_ocat(anilide_table):
    scans = detect_single_point_scans(anilide_table)
    assert scans and scans[0]["range"] > 2
    assert len(scans[0]["members"]) == 6  # the acetanilides: H, Cl, F, Br, Me, OMe at para
    ocat = identify_ocat_series([anilide_table])
    assert len(ocat) >= 3  # para scans (x2) and the acetyl/propionyl pairs
    assert all(len({m["substituent"] for m in o["members"]}) == len(o["members"]) for o in ocat)


def test_substituent_labels():
    assert substituent_label("Cl[*:2]") == "*Cl"
    assert substituent_label("[H][*:1]") == "H"
    # rooted at the attachment point, as written in a SAR table
    assert substituent_label("CC(C)[*:4]") == "*C(C)C"
    assert substituent_label("FC(F)(F)c1cccc([*:1])c1") == "*c1cccc(C(F)(F)F)c1"
    assert substituent_label("CCCO[*:3]") == "*OCCC"
    assert substituent_label("[*:1]C1CC([*:2])C1").count("*") == 2  # a group with two attachment points


def test_matched_pairs_with_mmpdb():
    import math

    smiles = [s for _, s, _ in ANILIDES]
    ids = [i for i, _, _ in ANILIDES]
    p = [6 - math.log10(float(v)) for _, _, v in ANILIDES]
    res = find_matched_pairs(smiles, p, ids=ids)
    assert res.max_cuts == 1 and res.n_fragmented == 9 and not res.failed
    by = {t["transformation"]: t for t in res.transforms}
    cl_to_f = by.get("[*:1]Cl>>[*:1]F") or by.get("[*:1]F>>[*:1]Cl")
    assert cl_to_f is not None and cl_to_f["count"] == 2  # A1->A2 and A7->A8
    sign = 1 if "[*:1]Cl>>" in cl_to_f["transformation"] else -1
    assert cl_to_f["mean_delta"] == pytest.approx(sign * ((7.699 - 8.0) + (7.097 - 7.301)) / 2, abs=2e-3)
    pair_ids = {(q["id_a"], q["id_b"]) for q in res.pairs} | {(q["id_b"], q["id_a"]) for q in res.pairs}
    assert ("A1", "A2") in pair_ids and ("A1", "A7") in pair_ids


def test_clusters_with_the_same_core_become_one_series():
    from molx_agent.sar.series import Series, _merge_same_core

    mols = _mols(QUINAZOLINES)
    core = Chem.MolToSmarts(Chem.MolFromSmiles("COc1cc2ncnc(N)c2cc1OC"))
    parts = [Series("S1", [0, 1, 2], core_smarts=core), Series("S2", [3, 4, 5], core_smarts=core),
             Series("S3", [], core_smarts=None)]
    parts[2].members = [5]
    merged = _merge_same_core(parts, mols)
    assert [s.members for s in merged] == [[0, 1, 2, 3, 4, 5], [5]]
    assert merged[0].id == "S1" and merged[0].coverage == 1.0 and merged[1].id == "S2"


def test_scatter_legend_only_when_it_tells_series_apart(monkeypatch):
    from molx_agent.sar import depict

    legends = []
    monkeypatch.setattr(depict, "figure_img", lambda fig, alt, fmt="png": legends.append(fig.axes[0].get_legend()))
    depict.scatter_img([1, 2], [5, 6], ["S1", "S1"], "x", "y", "one series")
    depict.scatter_img([1, 2, 3], [5, 6, 7], ["S1", "S2", ""], "x", "y", "two series and unassigned")
    assert legends[0] is None  # a lone legend marker inside the axes reads as one more compound
    assert [t.get_text() for t in legends[1].get_texts()] == ["other", "S1", "S2"]
    box = legends[1].get_bbox_to_anchor()
    assert legends[1].axes.transAxes.inverted().transform((box.x0, box.y0))[0] > 1  # right of the plot area
