"""The shared route report: files, self-containment, content, Markdown/JSON twins."""

from __future__ import annotations

import base64
import json
import re

import pytest

from molx_agent.errors import ValidationError
from molx_agent.retro.report import (
    forward_synthesis_text,
    render_route_report,
    starting_materials,
    visualization_data,
)
from molx_agent.retro.route import RetroGraph
from tests.retro.report_fixtures import losartan_route, paracetamol_route


@pytest.fixture
def paracetamol_report(tmp_path):
    return render_route_report(paracetamol_route(), tmp_path / "rep", name="Paracetamol",
                               extra={"stock": "zinc", "n_expansions": 12})


def test_writes_every_format_and_image(paracetamol_report, tmp_path):
    out = tmp_path / "rep"
    assert set(paracetamol_report) == {"html", "md", "json", "images_dir"}
    names = sorted(p.name for p in (out / "images").iterdir())
    assert names == ["mol_0.png", "mol_1.png", "mol_2.png", "mol_3.png", "rxn_1_reaction.png",
                     "rxn_2_reaction.png", "synthesis_tree.png"]
    for p in (out / "images").iterdir():
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_html_is_self_contained(paracetamol_report):
    html = open(paracetamol_report["html"], encoding="utf-8").read()
    assert "http://" not in html and "https://" not in html
    assert "<script" not in html and "<link" not in html and "@import" not in html and "url(" not in html
    srcs = re.findall(r'<img[^>]*src="([^"]+)"', html)
    assert len(srcs) == 1 + 1 + 2 + 2  # target, tree, 2 reactions, 2 starting materials
    for src in srcs:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1])[:4] == b"\x89PNG"


def test_html_shows_steps_evidence_and_stock(paracetamol_report):
    html = open(paracetamol_report["html"], encoding="utf-8").read()
    for text in ("Paracetamol", "Nitro reduction", "N-acetylation", "G08_anhydride_acetylation_retro",
                 "0.82", "in stock: zinc-instock-mini", "in stock: common-reagents", "Ac2O acetylates",
                 "HCl by-product", "n_expansions"):
        assert text in html, text
    # forward order: the nitro reduction (deeper) comes first
    assert html.index("Nitro reduction") < html.index("N-acetylation")


def test_markdown_twin_references_existing_images(paracetamol_report, tmp_path):
    md = open(paracetamol_report["md"], encoding="utf-8").read()
    refs = re.findall(r"\]\((images/[^)]+)\)", md)
    assert "images/synthesis_tree.png" in refs and "images/rxn_1_reaction.png" in refs
    for ref in refs:
        assert (tmp_path / "rep" / ref).is_file(), ref
    assert "| mol_1 |" in md and "in stock: zinc-instock-mini" in md


def test_json_round_trips_the_graph(paracetamol_report):
    data = json.loads(open(paracetamol_report["json"], encoding="utf-8").read())
    graph = RetroGraph.from_dict(data["graph"])
    assert graph.to_dict() == paracetamol_route().to_dict()
    assert data["summary"]["complete"] is True and data["summary"]["n_steps"] == 2
    assert [s["step_id"] for s in data["steps"]] == ["rxn_2", "rxn_1"]


def test_unresolved_leaf_is_flagged(tmp_path):
    g = paracetamol_route()
    g.molecule_nodes["mol_3"].role = "pending"
    g.molecule_nodes["mol_3"].availability = {}
    paths = render_route_report(g, tmp_path, formats=("html",))
    html = open(paths["html"], encoding="utf-8").read()
    assert "incomplete: 1 molecule(s) unresolved" in html
    assert [s["status"] for s in starting_materials(g)] == ["in_stock", "unresolved"]


def test_sa_estimate_is_never_called_in_stock(tmp_path):
    g = paracetamol_route()
    g.molecule_nodes["mol_3"].availability = {"available": True, "source": "sa_estimate"}
    sm = {s["node_id"]: s for s in starting_materials(g)}
    assert sm["mol_3"]["status"] == "terminal" and "SA/CS estimate" in sm["mol_3"]["label"]


def test_a_leaf_the_stock_lists_in_another_form_says_how_it_reacts(tmp_path):
    g = paracetamol_route()
    g.molecule_nodes["mol_3"].availability = {"available": True, "source": "n5", "reacts_as": "[O-]c1ccccc1"}
    sm = {s["node_id"]: s for s in starting_materials(g)}
    assert sm["mol_3"]["status"] == "in_stock" and sm["mol_3"]["label"] == "in stock: n5 (reacts as [O-]c1ccccc1)"
    assert sm["mol_3"]["reacts_as"] == "[O-]c1ccccc1"
    paths = render_route_report(g, tmp_path, formats=("html",))
    assert "reacts as [O-]c1ccccc1" in open(paths["html"], encoding="utf-8").read()


def test_chinese_labels(tmp_path):
    paths = render_route_report(paracetamol_route(), tmp_path, extra={"language": "zh"}, formats=("html", "md"))
    assert "合成路线报告" in open(paths["html"], encoding="utf-8").read()
    assert "起始原料" in open(paths["md"], encoding="utf-8").read()


def test_formats_subset_and_unknown_format(tmp_path):
    paths = render_route_report(paracetamol_route(), tmp_path, formats=("md",))
    assert set(paths) == {"md", "images_dir"} and not (tmp_path / "SYNTHESIS_REPORT.html").exists()
    with pytest.raises(ValidationError) as err:
        render_route_report(paracetamol_route(), tmp_path, formats=("pdf",))
    assert err.value.code == "unknown_report_format"


def test_target_only_route(tmp_path):
    g = RetroGraph.new("Nc1ccc(O)cc1", "4-aminophenol")
    paths = render_route_report(g, tmp_path)
    assert "No reaction step" in open(paths["html"], encoding="utf-8").read()


def test_forward_text_and_visualization():
    g = losartan_route()
    text = forward_synthesis_text(g, name="Losartan")
    order = [text.index(n) for n in ("Trityl protection", "Wohl-Ziegler", "N-alkylation", "NaBH4",
                                     "Trityl deprotection")]
    assert order == sorted(order)
    vis = visualization_data(g)
    ids = {n["id"] for n in vis["nodes"]}
    assert ids == set(g.molecule_nodes) | {r.step_id for r in g.reaction_nodes}
    assert all(e["source"] in ids and e["target"] in ids for e in vis["edges"])
    assert len(vis["edges"]) == sum(1 + len(r.reactant_nodes) for r in g.reaction_nodes)


def test_audit_state_object_or_dict_is_tabulated(tmp_path):
    from molx_agent.retro.route import DecisionRecord, SynthesisAuditState

    audit = SynthesisAuditState(decision_history=[DecisionRecord("rxn_1", "CC(=O)Nc1ccc(O)cc1", "decide",
                                                                 "N-acetylation", "mild, selective",
                                                                 "committed", "high")])
    for value in (audit, audit.to_dict()):
        paths = render_route_report(paracetamol_route(), tmp_path / str(type(value).__name__),
                                    extra={"audit_state": value}, formats=("html",))
        html = open(paths["html"], encoding="utf-8").read()
        assert "Decision history" in html and "mild, selective" in html


def test_small_model_scores_are_not_shown_as_zero(tmp_path):
    """A step the model found unlikely (p = 4.8e-05) must not read 'Model score 0.0' in the report."""
    g = paracetamol_route()
    rxn = g.reaction_nodes[0]
    rxn.score = 4.8e-05
    rxn.template_evidence.confidence = 4.8e-05
    paths = render_route_report(g, tmp_path, formats=("html", "json"))
    html = open(paths["html"], encoding="utf-8").read()
    assert "4.8e-05" in html


def test_gates_a_named_template_overrode_are_shown(tmp_path):
    """A step whose alignment gate a curated template overrode says so in every format, in both languages."""
    g = paracetamol_route()
    g.reaction_nodes[0].forward_validation.update(
        waived_gates=["bond_topology_violation"],
        waived_because="named template G08_anhydride_acetylation_retro regenerates exactly these precursors")
    paths = render_route_report(g, tmp_path / "en", formats=("html", "md"))
    for fmt in ("html", "md"):
        text = open(paths[fmt], encoding="utf-8").read()
        assert "Gates overridden by the template" in text and "bond_topology_violation" in text, fmt
        assert "regenerates exactly these precursors" in text, fmt
    assert "Gates overridden by the template: bond_topology_violation" in forward_synthesis_text(g)
    zh = open(render_route_report(g, tmp_path / "zh", formats=("html",), extra={"language": "zh"})["html"],
              encoding="utf-8").read()
    assert "由模板豁免的门槛" in zh


def test_a_chinese_report_names_named_reactions_and_classes_in_chinese(tmp_path):
    g = paracetamol_route()
    first, second = g.forward_order()
    first.reaction_type, second.reaction_type = "Nitro Reduction", "Acylation and related processes"
    zh = forward_synthesis_text(g, language="zh")
    assert ": 硝基还原" in zh and "Nitro Reduction" not in zh and "Acylation and related processes" not in zh
    en = forward_synthesis_text(g, language="en")
    assert ": Nitro Reduction" in en and ": Acylation and related processes" in en
    md = open(render_route_report(g, tmp_path, extra={"language": "zh"}, formats=("md",))["md"],
              encoding="utf-8").read()
    assert "· 硝基还原 (" in md
