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
