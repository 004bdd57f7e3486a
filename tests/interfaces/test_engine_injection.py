"""Every surface reaches the engine only through the RetroEngine it is given, and judges a step the same way.

A toy engine (a table-driven single-step model and a two-line stock) is passed to a skill, the pipeline, the session
and ``run_route``; its unique precursors (cyclohexyl acetate for cyclohexanol, a step no packaged model or named
template proposes) and its stock's name show up in every answer, and its model is the one called.  The same model
step, judged through the skill, the pipeline and the session, gets exactly the verdict of ``retro.judge.judge_step``
called as the route search calls it.
"""

from __future__ import annotations

import pytest

from molx_agent.interfaces._engine import brief_judgement
from molx_agent.interfaces.pipeline.models import TaskType
from molx_agent.interfaces.pipeline.service import plan_session, run_route
from molx_agent.interfaces.pipeline.session_store import SessionStore
from molx_agent.interfaces.session import RetroCmd
from molx_agent.interfaces.skills import run_skill
from molx_agent.retro.engine import RetroEngine
from molx_agent.retro.judge import judge_step
from molx_agent.retro.stock import FileStock
from molx_agent.retro.toy_model import DictSingleStepModel

CYCLOHEXANOL = "OC1CCCCC1"
ACETATE = "CC(=O)OC1CCCCC1"
MAPPED = "[CH3:8][C:9](=[O:10])[O:1][CH:2]1[CH2:3][CH2:4][CH2:5][CH2:6][CH2:7]1>>[OH:1][CH:2]1[CH2:3][CH2:4][CH2:5][CH2:6][CH2:7]1"
#: under the plausibility floor (1e-3): the verdict is "implausible" only when the model score travels with the step
SCORE = 5e-4
CATEGORY = "deprotection"


@pytest.fixture
def toy_model():
    return DictSingleStepModel({CYCLOHEXANOL: [([ACETATE], SCORE, "Acetate hydrolysis", CATEGORY, MAPPED)]})


@pytest.fixture
def toy_stock(tmp_path):
    path = tmp_path / "toy-stock.smi"
    path.write_text(f"{ACETATE}\nCCO\n", encoding="utf-8")
    return FileStock(path)


@pytest.fixture
def engine(toy_model, toy_stock):
    return RetroEngine(model=toy_model, stock=toy_stock)


@pytest.fixture
def expected():
    """The route search's judgement of the toy step (retro.search calls judge_step with exactly these arguments)."""
    return brief_judgement(judge_step([ACETATE], CYCLOHEXANOL, reaction_type=CATEGORY, template_id=None,
                                      mapped_reaction=MAPPED, score=SCORE))


def test_the_toy_step_is_judged_implausible_only_with_its_score(expected):
    assert expected["verdict"] == "implausible" and expected["pass"] is True
    assert judge_step([ACETATE], CYCLOHEXANOL, reaction_type=CATEGORY, mapped_reaction=MAPPED)["verdict"] == "plausible"


def test_skills_use_the_injected_engine(engine, toy_model, toy_stock, expected):
    res = run_skill("propose_disconnection", {"target_smiles": CYCLOHEXANOL}, engine=engine)
    assert res.success, res.error
    assert toy_model.n_calls == 1 and res.data["n_model_predictions"] == 1
    (prop,) = res.data["proposals"]
    assert prop["precursors"] == [ACETATE] and prop["score"] == SCORE and prop["category"] == CATEGORY
    assert prop["forward_validation"] == expected  # the skill judges the step as the search does
    avail = run_skill("check_availability", {"smiles_list": [ACETATE, "CCCCCCCCCCCCCCCCCC(=O)O"]}, engine=engine)
    first, second = avail.data["precursors"]
    assert first["source"] == toy_stock.name and first["tier"] == "verified"
    assert second["in_stock"] is False  # not in the toy stock (the packaged stocks are never asked)


def test_the_pipeline_uses_the_injected_engine(tmp_path, engine, toy_model, toy_stock, expected):
    out = plan_session(CYCLOHEXANOL, tmp_path / "s", engine=engine)
    run = run_route(out["session_dir"], out["routes"][0]["route_id"], auto=True, engine=engine)
    assert run["status"] == "completed", run
    assert toy_model.n_calls >= 1
    route = SessionStore(out["session_dir"]).load_route(out["routes"][0]["route_id"])
    validate = next(t for t in route.tasks.values() if t.type == TaskType.VALIDATE)
    assert validate.inputs["precursors"] == [ACETATE]  # the toy model's proposal
    assert validate.result["step_judgement"] == expected  # the pipeline judges the step as the search does
    assert validate.result["is_valid"] is True
    assert any(i["code"] == "implausible_step" for i in validate.result["issues"])
    recursion = next(t for t in route.tasks.values() if t.type == TaskType.RECURSION)
    (leaf,) = recursion.result["precursors"]
    assert leaf["in_stock"] is True and leaf["source"] == toy_stock.name  # the toy stock, through the engine


def test_the_session_uses_the_injected_engine(tmp_path, engine, toy_model, toy_stock, expected):
    cmd = RetroCmd(tmp_path / "s.json", engine=engine)
    cmd.execute("init", {"target": CYCLOHEXANOL})
    ctx = cmd.execute("next")["current"]
    assert toy_model.n_calls == 1
    fgis = cmd.execute("context", {"detail": "full"})["current"]["fgi"]
    model_fgi = next(f for f in fgis if f["precursors"] == [ACETATE])
    assert model_fgi["source"] == "single_step_model" and ctx["node_id"] == "mol_0"
    attempt = cmd.execute("try_fgi", {"fgi_idx": model_fgi["fgi_idx"]})
    fv = attempt["forward_validation"]
    assert {k: fv.get(k) for k in expected} == expected  # the session judges the step as the search does
    assert attempt["success"] is True
    detail = attempt["precursor_details"][0]
    assert detail["in_stock"] is True and detail["stock_source"] == toy_stock.name


def test_run_route_uses_the_injected_engine(engine, toy_model, toy_stock):
    from molx_agent.cli.route import run_route as run_route_cli

    payload = run_route_cli(CYCLOHEXANOL, engine=engine, time_limit=5, write_files=False)
    assert payload["solved"] is True and toy_model.n_calls >= 1
    (route,) = payload["route_summaries"]
    assert route["starting_materials"] == [{"smiles": ACETATE, "source": toy_stock.name, "tier": "verified"}]
    assert payload["stock"] == toy_stock.name


def test_target_skills_read_a_name_through_the_one_resolver(engine):
    from molx_agent.retro.targets import resolve_target

    paracetamol, _ = resolve_target("paracetamol")
    res = run_skill("propose_disconnection", {"target_smiles": "paracetamol"}, engine=engine)
    assert res.success and res.data["target_smiles"] == paracetamol
    assert res.data["proposals"] == []  # the toy model knows only cyclohexanol
    bad = run_skill("propose_disconnection", {"target_smiles": "unobtainium"}, engine=engine)
    assert bad.error_code == "invalid_smiles" and bad.error.startswith("Failed to parse SMILES")
