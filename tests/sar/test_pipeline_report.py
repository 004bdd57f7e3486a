"""The whole pipeline on a real series, the report modes, and the report in a real browser."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from molx_agent.errors import DataError
from molx_agent.sar.pipeline import parse_mode, run_sar_pipeline, validate_mode, write_report

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "series.csv"


@pytest.fixture(scope="module")
def gsk3b_result(tmp_path_factory):
    out = tmp_path_factory.mktemp("sar_gsk3b")
    return run_sar_pipeline(EXAMPLE, output_dir=out)


def test_pipeline_counts_files_and_series(gsk3b_result):
    r = gsk3b_result
    assert r.clean.counts() == {"n_input": 60, "n_clean": 60, "n_errors": 0, "n_duplicates_merged": 0}
    out = Path(r.output_dir)
    for name in ("cleaned.csv", "errors.csv", "clean_summary.json", "compounds.csv", "rgroups.csv", "cliffs.csv",
                 "mmp_transforms.csv", "mmp_pairs.csv", "sar_report.html", "sar_summary.json"):
        assert (out / name).is_file(), name
    assert len(r.series) == 1 and r.series[0].core_atoms >= 15  # the bicyclic + pyrimidine core, not a ring
    assert r.rgroup_tables and r.rgroup_tables[0].positions
    assert r.mmp.transforms and r.mmp.pairs
    assert r.insights and r.insights_source == "rules"


def test_cliffs_point_back_to_input_rows(gsk3b_result):
    src = pd.read_csv(EXAMPLE)
    doc = gsk3b_result.to_dict()
    assert doc["cliffs"], "this series has cliffs"
    for c in doc["cliffs"]:
        assert src.loc[c["row_a"], "compound_id"] == c["id_a"]
        assert src.loc[c["row_b"], "compound_id"] == c["id_b"]
        assert c["fold_change"] > 10
        assert max(c["tanimoto_ecfp4"], c["tanimoto_scaffold"], c["levenshtein"]) >= 0.9
    # the share of cliff molecules is a real property of the set, not "almost everything"
    assert doc["n_cliff_molecules"] < 0.6 * doc["n_clean"]


def test_summary_json_matches_result(gsk3b_result):
    data = json.loads(Path(gsk3b_result.summary_path).read_text(encoding="utf-8"))
    assert data["n_input"] == 60 and data["report_path"].endswith("sar_report.html")
    assert len(data["cliffs"]) == data["n_cliff_pairs"]
    assert {"transformation", "count", "mean_delta", "sd_delta"} <= set(data["mmp_transforms"][0])


def test_report_is_self_contained(gsk3b_result):
    html = Path(gsk3b_result.report_path).read_text(encoding="utf-8")
    srcs = re.findall(r'src="([^"]+)"', html)
    assert srcs and all(s.startswith("data:image/") for s in srcs)
    assert "<script" not in html and "http://" not in html and "https://" not in html
    for section in ("Key findings", "R-group analysis", "Matched molecular pairs", "Activity cliffs"):
        assert section in html


def test_site_and_subset_modes(gsk3b_result, tmp_path):
    r = gsk3b_result
    site = r.rgroup_tables[0].positions[0]
    r.mode = parse_mode(f"site:{site}")
    validate_mode(r, r.mode)
    write_report(r, tmp_path, name="site")
    html = (tmp_path / "site.html").read_text(encoding="utf-8")
    assert f"site:{site}" in html and "Activity cliffs" not in html
    r.mode = parse_mode("subset:GSK3B-001,GSK3B-002")
    write_report(r, tmp_path, name="subset")
    html = (tmp_path / "subset.html").read_text(encoding="utf-8")
    assert "GSK3B-002" in html and "GSK3B-050" not in html.split("Activity cliffs")[0]
    r.mode = parse_mode("full")


def test_bad_modes_are_clear_errors(gsk3b_result):
    with pytest.raises(DataError) as exc:
        parse_mode("site:X")
    assert exc.value.code == "invalid_mode"
    with pytest.raises(DataError) as exc:
        validate_mode(gsk3b_result, parse_mode("site:R99"))
    assert exc.value.code == "unknown_site" and "R" in exc.value.message
    with pytest.raises(DataError) as exc:
        validate_mode(gsk3b_result, parse_mode("subset:NOPE-1"))
    assert exc.value.code == "unknown_ids" and "NOPE-1" in exc.value.message


@pytest.mark.browser
def test_report_renders_in_chromium(gsk3b_result, tmp_path):
    from tests.browser import check_html_in_browser, require_chromium

    require_chromium()
    check = check_html_in_browser(gsk3b_result.report_path, tmp_path / "report.png")
    assert check.ok, check.problems
    assert check.n_images > 50  # plots and structures, all loaded
    assert "Activity cliffs" in check.body_text


class _FakeLLM:
    def __init__(self, reply):
        self.reply = reply

    def invoke(self, prompt):
        assert "Findings" in prompt
        return type("Msg", (), {"content": self.reply})()


def test_insights_from_an_injected_llm_or_rules(gsk3b_result):
    from molx_agent.sar.insights import build_insights

    lines, source = build_insights(gsk3b_result, "en", _FakeLLM('["R3 para-F is best.", "Watch LLE."]'))
    assert (lines, source) == (["R3 para-F is best.", "Watch LLE."], "llm")
    lines, source = build_insights(gsk3b_result, "zh", _FakeLLM("no json here"))
    assert source == "rules" and any("系列" in x for x in lines)


def _insights_in_mode(result, mode: str, language: str = "en") -> list[str]:
    from molx_agent.sar.insights import deterministic_insights

    try:
        result.mode = parse_mode(mode)
        return deterministic_insights(result, language)
    finally:
        result.mode = parse_mode("full")


def test_site_mode_findings_lead_with_that_site(gsk3b_result):
    from molx_agent.sar.insights import deterministic_insights

    r = gsk3b_result
    stats = r.rgroup_tables[0].position_stats("R1")
    lines = _insights_in_mode(r, "site:R1")
    assert lines[0].startswith("Site R1 of series S1")
    ranking = lines[0].split("pKi: ", 1)[1]
    top = stats[0]
    assert ranking.startswith(f"{top['substituent']} {top['mean']:.2f} (n={top['n']}) > ")
    assert all(f"{s['substituent']} {s['mean']:.2f} (n={s['n']})" in ranking for s in stats[:8])
    multi = [s for s in stats if s["n"] >= 2]
    assert lines[1] == (f"At R1 (series S1), among substituents seen at least twice, {multi[0]['substituent']} "
                        f"(mean {multi[0]['mean']:.2f}, n={multi[0]['n']}) beats {multi[-1]['substituent']} (mean "
                        f"{multi[-1]['mean']:.2f}, n={multi[-1]['n']}) by {multi[0]['mean'] - multi[-1]['mean']:.2f} "
                        "log units.")
    ocat = next(o for o in r.ocat if o["position"] == "R1")
    assert lines[2].startswith("Cleanest R1 comparison") and all(m["id"] in lines[2] for m in ocat["members"][:8])
    full = deterministic_insights(r, "en")
    assert lines[3:] == full  # the findings on the whole set follow
    zh = _insights_in_mode(r, "site:R1", "zh")
    assert "R1 位" in zh[0] and top["substituent"] in zh[0]


def test_subset_mode_findings_lead_with_the_chosen_compounds(gsk3b_result):
    r = gsk3b_result
    chosen = {"GSK3B-001", "GSK3B-039"}
    lines = _insights_in_mode(r, "subset:GSK3B-001,GSK3B-039")
    assert lines[0].startswith("Chosen compounds (2): ") and all(i in lines[0] for i in chosen)
    cliffs = [c for c in r.cliffs.pairs if {c.id_a, c.id_b} & chosen]
    pairs = [p for p in r.mmp.pairs if {p["id_a"], p["id_b"]} & chosen]
    assert cliffs and pairs  # both compounds sit in the middle of the series
    assert lines[1].startswith(f"{len(cliffs)} activity-cliff pair(s) involve them; the strongest: "
                               f"{cliffs[0].id_a} vs {cliffs[0].id_b}")
    assert lines[2].startswith(f"{len(pairs)} matched pair(s) involve them; the largest change: "
                               f"{pairs[0]['id_a']} → {pairs[0]['id_b']}")
    assert "pair(s)" not in _insights_in_mode(r, "full")[0]


def test_findings_write_substituents_and_transformations_as_chemists_do(gsk3b_result):
    from molx_agent.sar.insights import transformation_label

    assert transformation_label("[*:1]F>>[*:1]OC") == "*F → *OC"
    assert transformation_label("[*:1]OC>>[*:1][H]") == "*OC → H"
    assert transformation_label("[*:1]c1ccc([*:2])cc1>>[*:1]c1ccncc1[*:2]") == (
        "[*:1]c1ccc([*:2])cc1 → [*:1]c1ccncc1[*:2]")  # two cuts keep their numbered attachment points
    assert not any("[*:1]" in line for line in gsk3b_result.insights)


def _levenshtein(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def test_cliff_pairs_match_a_brute_force_moleculeace_oracle(gsk3b_result):
    """Every pair of the example series checked one by one with plain RDKit and a textbook Levenshtein."""
    import math

    from rdkit import Chem, DataStructs
    from rdkit.Chem import rdFingerprintGenerator
    from rdkit.Chem.Scaffolds import MurckoScaffold

    src = pd.read_csv(EXAMPLE)
    gen = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=1024)
    mols = [Chem.MolFromSmiles(s) for s in src["smiles"]]
    fps = [gen.GetFingerprint(m) for m in mols]
    sfps = [gen.GetFingerprint(MurckoScaffold.MakeScaffoldGeneric(m)) for m in mols]
    p = [9 - math.log10(v) for v in src["Ki (nM)"]]
    expected = {}
    for i in range(len(mols)):
        for j in range(i + 1, len(mols)):
            a, b = src["smiles"][i], src["smiles"][j]
            tan = DataStructs.TanimotoSimilarity(fps[i], fps[j])
            sca = DataStructs.TanimotoSimilarity(sfps[i], sfps[j])
            lev = 1 - _levenshtein(a, b) / max(len(a), len(b))
            fold = 10 ** abs(p[i] - p[j])
            if max(tan, sca, lev) >= 0.9 and fold > 10 * (1 + 1e-9):
                expected[(i, j)] = (tan, sca, lev, fold)
    got = {(c["row_a"], c["row_b"]): c for c in gsk3b_result.to_dict()["cliffs"]}
    assert set(got) == set(expected) and len(got) == gsk3b_result.to_dict()["n_cliff_pairs"]
    for key, (tan, sca, lev, fold) in expected.items():
        c = got[key]
        assert c["tanimoto_ecfp4"] == pytest.approx(tan, abs=1e-4)
        assert c["tanimoto_scaffold"] == pytest.approx(sca, abs=1e-4)
        assert c["levenshtein"] == pytest.approx(lev, abs=1e-4)
        assert c["fold_change"] == pytest.approx(fold, rel=1e-3)
        assert (c["id_a"], c["id_b"]) == (src["compound_id"][key[0]], src["compound_id"][key[1]])
