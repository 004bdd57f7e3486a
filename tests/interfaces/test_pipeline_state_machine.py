"""The pipeline's state machine with a scripted skill layer (deterministic, no chemistry engine).

A scripted ``run_skill`` lets each test choose what validation and repair answer, so every
action of the 5 decision points, the limits and the error paths are exercised exactly.
The real engine is exercised by tests/cli/test_retro_pipeline_cli.py.
"""

from __future__ import annotations

import pytest

from molx_agent.errors import RetroError
from molx_agent.interfaces.pipeline import executors as executors_mod
from molx_agent.interfaces.pipeline.decisions import recursion_default
from molx_agent.interfaces.pipeline.limits import LIMITS, RetroLimits
from molx_agent.interfaces.pipeline.models import DecisionType, RouteStatus, TaskStatus, TaskType
from molx_agent.interfaces.pipeline.orchestrator import Orchestrator
from molx_agent.interfaces.skills import SkillResult

ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O"
# aspirin atom indices: 0 C, 1 C(=O), 2 O, 3 O (ester), 4 c ... ; ester bond 1-3 and aryl-O bond 3-4
ESTER_RXN = "CC(=O)Cl.O=C(O)c1ccccc1O>>CC(=O)Oc1ccccc1C(=O)O"


class ScriptedSkills:
    """A stand-in for ``run_skill`` whose answers the test controls."""

    def __init__(self) -> None:
        self.valid = [True]  # successive validate_reaction answers (last one repeats)
        self.repaired: str | None = ESTER_RXN
        self.calls: list[str] = []
        self.stock = {"CC(=O)Cl", "Oc1ccccc1", "O=C=O"}
        self.sa = {"CC(=O)Cl": 1.5, "O=C(O)c1ccccc1O": 3.8, "CC(=O)O": 1.2, "Oc1ccccc1C(=O)O": 3.8}

    def __call__(self, name: str, args: dict, engine=None) -> SkillResult:
        self.calls.append(name)
        if name == "decide_strategy":
            return SkillResult.ok(
                {"recommended_strategy": "convergent", "scores": {"linear": 0.4, "convergent": 0.6}}
            )
        if name in ("analyze_scaffold", "analyze_selectivity"):
            return SkillResult.ok({"ok": True})
        if name == "check_availability":
            recs = [
                {
                    "smiles": s,
                    "available": s in self.stock,
                    "in_stock": s in self.stock,
                    "source": "test-stock" if s in self.stock else "sa_estimate",
                    "sa_score": self.sa.get(s, 4.0),
                }
                for s in args["smiles_list"]
            ]
            return SkillResult.ok({"precursors": recs})
        if name == "analyze_molecule":
            bonds = (
                []
                if args["smiles"] != ASPIRIN
                else [
                    {"atoms": [1, 3], "strategic_priority": 0.9, "chemical_label": "ester C(=O)-O"},
                    {"atoms": [3, 4], "strategic_priority": 0.5, "chemical_label": "aryl C-O"},
                ]
            )
            return SkillResult.ok(
                {
                    "molecule_info": {
                        "smiles": args["smiles"],
                        "atom_bond_map": {"strategic_bonds": bonds},
                        "functional_groups": [{"name": "ester"}],
                    }
                }
            )
        if name == "propose_disconnection" and args["target_smiles"] != ASPIRIN:  # Kolbe-Schmitt
            return SkillResult.ok(
                {
                    "proposals": [
                        {
                            "rank": 1,
                            "reaction_smiles": "Oc1ccccc1.O=C=O>>" + args["target_smiles"],
                            "precursors": ["Oc1ccccc1", "O=C=O"],
                            "score": 0.4,
                            "reaction_name": "Kolbe-Schmitt",
                            "template_id": "T2",
                        }
                    ]
                }
            )
        if name == "propose_disconnection":
            return SkillResult.ok(
                {
                    "proposals": [
                        {
                            "rank": 1,
                            "reaction_smiles": "CC(=O)O.Oc1ccccc1C(=O)O>>" + args["target_smiles"],
                            "precursors": ["CC(=O)O", "Oc1ccccc1C(=O)O"],
                            "score": 0.5,
                            "reaction_name": "Esterification",
                            "template_id": "T1",
                        }
                    ]
                }
            )
        if name == "break_bond":
            return SkillResult.ok(
                {
                    "fragments": ["CC(=O)Cl", "O=C(O)c1ccccc1O"],
                    "reaction_smiles": ESTER_RXN,
                    "reaction_type": "ester formation",
                }
            )
        if name == "validate_reaction":
            ok = self.valid.pop(0) if len(self.valid) > 1 else self.valid[0]
            return SkillResult.ok(
                {
                    "is_valid": ok,
                    "verdict": "valid" if ok else "unbalanced",
                    "issues": [] if ok else [{"code": "atom_balance", "message": "unbalanced"}],
                }
            )
        if name == "repair_reaction":
            return SkillResult.ok(
                {"repaired_smiles": self.repaired, "repair_actions": ["added HCl"], "changes_made": ["x"]}
            )
        raise AssertionError(f"unexpected skill {name}")


@pytest.fixture
def skills(monkeypatch) -> ScriptedSkills:
    fake = ScriptedSkills()
    monkeypatch.setattr(executors_mod, "run_skill", fake)
    return fake


def planned(limits: RetroLimits = LIMITS) -> Orchestrator:
    return Orchestrator.plan("route_1", ASPIRIN, limits=limits)


def test_plan_seeds_strategy_analyze_disconnect(skills):
    rt = planned()
    assert [t.type for t in rt.route.tasks.values()] == [
        TaskType.STRATEGY,
        TaskType.ANALYZE,
        TaskType.DISCONNECT,
    ]
    assert rt.route.status == RouteStatus.PLANNED


def test_every_decision_type_with_use_default_runs_to_completion(skills):
    rt = planned()
    seen = []
    out = rt.run()
    while out["status"] == "paused":
        seen.append(out["decision_type"])
        # every DecisionContext carries the seed's fields
        for key in (
            "decision_type",
            "task_id",
            "context",
            "available_actions",
            "decision_history",
            "exploration_tools",
            "exploration_budget",
        ):
            assert key in out
        assert "route_summary" in out["context"]
        out = rt.decide({"task_id": out["task_id"], "action": "use_default"})
    assert out["status"] == "completed"
    assert seen == [
        "strategy_selection",
        "disconnection_decision",
        "validation_judgment",
        "recursion_decision",
        "disconnection_decision",
        "validation_judgment",
        "recursion_decision",
    ]
    assert rt.route.strategy == "convergent"  # use_default takes recommended_strategy
    assert rt.graph.is_complete()


def test_auto_equals_use_default_everywhere(skills):
    rt = planned()
    out = rt.run(auto=True)
    assert out["status"] == "completed"
    assert all(h["action"] == "use_default" for h in rt.route.decision_history)
    assert {h["decision_type"] for h in rt.route.decision_history} >= {
        "strategy_selection",
        "disconnection_decision",
        "validation_judgment",
        "recursion_decision",
    }


def _to(rt: Orchestrator, decision_type: str) -> dict:
    out = rt.run()
    while out["status"] == "paused" and out["decision_type"] != decision_type:
        out = rt.decide({"task_id": out["task_id"], "action": "use_default"})
    assert out["decision_type"] == decision_type
    return out


def test_choose_strategy_and_invalid_strategy(skills):
    rt = planned()
    out = rt.run()
    with pytest.raises(RetroError) as err:
        rt.decide(
            {"task_id": out["task_id"], "action": "choose_strategy", "params": {"chosen_strategy": "zigzag"}}
        )
    assert err.value.code == "invalid_decision_params"
    assert rt.route.pending_decision is not None  # unchanged
    rt.decide(
        {"task_id": out["task_id"], "action": "choose_strategy", "params": {"chosen_strategy": "linear"}}
    )
    assert rt.route.strategy == "linear"


def test_instruction_validation_errors(skills):
    rt = planned()
    out = rt.run()
    before = rt.route.model_dump()
    cases = [
        ({"task_id": "999", "action": "use_default"}, "task_id_mismatch"),
        ({"task_id": out["task_id"], "action": "select_bond"}, "action_not_available"),
        ({"task_id": out["task_id"]}, "invalid_instruction"),
        ({"task_id": out["task_id"], "action": "use_default", "bogus": 1}, "invalid_instruction"),
    ]
    for instruction, code in cases:
        with pytest.raises(RetroError) as err:
            rt.decide(instruction)
        assert err.value.code == code
    assert rt.route.model_dump() == before


def test_select_bond_checks_the_bond(skills):
    rt = planned()
    out = _to(rt, "disconnection_decision")
    for params in (
        {"atom1_idx": 0, "atom2_idx": 99},
        {"atom1_idx": 0, "atom2_idx": 5},
        {"atom1_idx": "a", "atom2_idx": 1},
    ):
        with pytest.raises(RetroError) as err:
            rt.decide({"task_id": out["task_id"], "action": "select_bond", "params": params})
        assert err.value.code in ("invalid_bond", "invalid_decision_params")
    out = rt.decide(
        {"task_id": out["task_id"], "action": "select_bond", "params": {"atom1_idx": 1, "atom2_idx": 3}}
    )
    assert out["decision_type"] == "validation_judgment"
    assert out["context"]["reaction_smiles"] == ESTER_RXN


def test_custom_reaction_must_make_the_molecule(skills):
    rt = planned()
    out = _to(rt, "disconnection_decision")
    with pytest.raises(RetroError) as err:
        rt.decide(
            {
                "task_id": out["task_id"],
                "action": "custom_reaction",
                "params": {"reaction_smiles": "CCO>>CC=O"},
            }
        )
    assert err.value.code == "product_mismatch"
    out = rt.decide(
        {
            "task_id": out["task_id"],
            "action": "custom_reaction",
            "params": {"reaction_smiles": "CC(=O)O.Oc1ccccc1C(=O)O>>" + ASPIRIN},
        }
    )
    assert out["context"]["precursors"] == ["CC(=O)O", "Oc1ccccc1C(=O)O"]


def test_invalid_step_cannot_be_accepted_and_repair_retries_exhaust(skills):
    skills.valid = [False]
    rt = planned()
    out = _to(rt, "validation_judgment")
    ids = [a["action_id"] for a in out["available_actions"]]
    assert "accept" not in ids and "accept_with_note" not in ids  # hard gate
    with pytest.raises(RetroError) as err:
        rt.decide({"task_id": out["task_id"], "action": "accept"})
    assert err.value.code == "validation_failed"
    out = rt.decide({"task_id": out["task_id"], "action": "repair"})
    assert out["decision_type"] == "repair_judgment"
    out = rt.decide({"task_id": out["task_id"], "action": "reject_and_retry"})  # repair 2
    out = rt.decide({"task_id": out["task_id"], "action": "reject_and_retry"})  # repair 3
    assert out["context"]["repair_retries_left"] == 0
    assert "reject_and_retry" not in [a["action_id"] for a in out["available_actions"]]
    with pytest.raises(RetroError) as err:
        rt.decide({"task_id": out["task_id"], "action": "reject_and_retry"})
    assert err.value.code == "repair_retries_exhausted"
    # accept the repair: it is validated again, fails, and repair is no longer offered
    out = rt.decide({"task_id": out["task_id"], "action": "accept_repair"})
    assert out["decision_type"] == "validation_judgment"
    ids = [a["action_id"] for a in out["available_actions"]]
    assert "repair" not in ids
    # use_default with retries exhausted abandons the bond (documented extension)
    out = rt.decide({"task_id": out["task_id"], "action": "use_default"})
    assert out["decision_type"] == "disconnection_decision"
    assert out["context"]["failed_attempts"]
    tried = [b for b in out["context"]["atom_bond_map"]["strategic_bonds"] if b["already_tried"]]
    assert [b["atoms"] for b in tried] == [[1, 3]]


def test_repair_retries_exhausted_error_is_raised(skills):
    skills.valid = [False]
    rt = planned(RetroLimits(MAX_REPAIR_RETRIES=1))
    out = _to(rt, "validation_judgment")
    out = rt.decide({"task_id": out["task_id"], "action": "repair"})
    assert out["context"]["repair_retries_left"] == 0
    with pytest.raises(RetroError) as err:
        rt.decide({"task_id": out["task_id"], "action": "reject_and_retry"})
    assert err.value.code == "repair_retries_exhausted"
    assert rt.route.pending_decision.task_id == out["task_id"]  # unchanged


def test_validation_actions_retry_and_reanalyze(skills):
    skills.valid = [False]
    rt = planned()
    out = _to(rt, "validation_judgment")
    n_analyze = sum(t.type == TaskType.ANALYZE for t in rt.route.tasks.values())
    out = rt.decide({"task_id": out["task_id"], "action": "re_analyze_disconnection"})
    assert out["decision_type"] == "disconnection_decision"
    assert sum(t.type == TaskType.ANALYZE for t in rt.route.tasks.values()) == n_analyze + 1
    assert skills.calls.count("analyze_molecule") == 2  # re-analysed, not reused
    out = rt.decide({"task_id": out["task_id"], "action": "use_default"})  # next untried bond (3-4)
    out = rt.decide({"task_id": out["task_id"], "action": "retry_other_bond"})
    assert skills.calls.count("analyze_molecule") == 2  # retry_other_bond reuses the analysis
    # both bonds tried: use_default falls back to the single-step model's proposal
    skills.valid = [True]
    out = rt.decide({"task_id": out["task_id"], "action": "use_default"})
    assert out["decision_type"] == "validation_judgment"
    assert out["context"]["precursors"] == ["CC(=O)O", "Oc1ccccc1C(=O)O"]


def test_accept_with_note_keeps_conditions(skills):
    rt = planned()
    out = _to(rt, "validation_judgment")
    out = rt.decide(
        {
            "task_id": out["task_id"],
            "action": "accept_with_note",
            "reasoning": "classic acetylation",
            "reaction_conditions": {"reaction_type": "O-acetylation", "base": "pyridine"},
        }
    )
    assert out["decision_type"] == "recursion_decision"
    rxn = rt.graph.reaction_nodes[0]
    assert rxn.reaction_type == "O-acetylation"
    assert rt.graph.metadata["reaction_conditions"][rxn.step_id]["base"] == "pyridine"
    assert "classic acetylation" in rxn.llm_decision.selection_reasoning


def test_recursion_default_rules():
    assert recursion_default(4.0, 100.0, False, 120)[0] == "mark_terminal"  # MW < 120
    assert recursion_default(2.1, 300.0, False, 120)[0] == "mark_terminal"
    assert recursion_default(2.2, 300.0, False, 120)[0] == "mark_optional"
    assert recursion_default(3.49, 300.0, False, 120)[0] == "mark_optional"
    assert recursion_default(3.5, 300.0, False, 120)[0] == "decompose"
    assert recursion_default(6.0, 300.0, True, 120)[0] == "mark_terminal"  # in stock (beyond the seed)


def test_recursion_decision_params(skills):
    rt = planned()
    out = _to(rt, "recursion_decision")
    pre = {p["smiles"]: p for p in out["context"]["precursors"]}
    assert pre["CC(=O)Cl"]["suggested_action"] == "mark_terminal"  # in stock
    assert pre["O=C(O)c1ccccc1O"]["suggested_action"] == "decompose"  # SA 3.8
    with pytest.raises(RetroError):
        rt.decide(
            {
                "task_id": out["task_id"],
                "action": "recursion_decision",
                "params": {"precursor_decisions": [{"smiles": "CCCC", "action": "decompose"}]},
            }
        )
    with pytest.raises(RetroError):
        rt.decide(
            {
                "task_id": out["task_id"],
                "action": "recursion_decision",
                "params": {"precursor_decisions": [{"smiles": "CC(=O)Cl", "action": "explode"}]},
            }
        )
    out = rt.decide(
        {
            "task_id": out["task_id"],
            "action": "recursion_decision",
            "params": {
                "precursor_decisions": [
                    {
                        "smiles": "ClC(C)=O",
                        "action": "mark_terminal",
                        "reason": "bought",
                    },  # any spelling of the SMILES
                    {"smiles": "O=C(O)c1ccccc1O", "action": "mark_optional", "reason": "easy"},
                ]
            },
        }
    )
    assert out["status"] == "completed"
    leaves = {n.smiles: n for n in rt.graph.leaves()}
    assert leaves["O=C(O)c1ccccc1O"].llm_analysis["optional"] is True


def test_max_depth_makes_precursors_terminal(skills):
    rt = planned(RetroLimits(MAX_DEPTH=1))
    out = _to(rt, "recursion_decision")
    out = rt.decide(
        {
            "task_id": out["task_id"],
            "action": "recursion_decision",
            "params": {"precursor_decisions": [{"smiles": "O=C(O)c1ccccc1O", "action": "decompose"}]},
        }
    )
    assert out["status"] == "completed"
    node = [n for n in rt.graph.leaves() if n.smiles == "O=C(O)c1ccccc1O"][0]
    assert "MAX_DEPTH" in node.decision_context["reason"]


def test_task_limit_leaves_route_unchanged(skills):
    skills.valid = [False]
    rt = planned(RetroLimits(MAX_TOTAL_TASKS=8))
    out = _to(rt, "validation_judgment")
    with pytest.raises(RetroError) as err:
        while True:
            out = rt.decide({"task_id": out["task_id"], "action": "retry_other_bond"})
            out = rt.decide({"task_id": out["task_id"], "action": "use_default"})
    assert err.value.code == "task_limit_exceeded"
    assert len(rt.route.tasks) <= 8
    assert rt.route.pending_decision is not None


def test_auto_run_stops_at_task_limit(skills):
    skills.valid = [False]
    skills.repaired = None  # repair never helps -> abandon, retry, ... until the limit
    rt = planned(RetroLimits(MAX_TOTAL_TASKS=12))
    out = rt.run(auto=True)
    assert out["status"] == "limit_reached"
    assert out["error"]["code"] == "task_limit_exceeded" and "MAX_TOTAL_TASKS=12" in out["error"]["message"]
    assert len(rt.route.tasks) == 12
    # the decision that needed more tasks is still pending: a smaller decision could go on
    assert out["decision_type"] and rt.route.pending_decision is not None


def test_auto_run_fails_when_every_disconnection_is_tried(skills):
    skills.valid = [False]
    skills.repaired = None  # repair never helps: both bonds and the model proposal are abandoned
    rt = planned()
    out = rt.run(auto=True)
    assert out["status"] == "failed"
    assert out["reasons"] == [f"no disconnection left for {ASPIRIN}"]  # said once
    tried = rt.failed_attempts_for(rt.graph.target_id)
    assert [f["bond"] for f in tried] == [[1, 3], [3, 4], None]  # 2 strategic bonds, then the model proposal
    assert tried[2]["reaction_smiles"].startswith("CC(=O)O.Oc1ccccc1C(=O)O>>")


def test_exploration_budget_and_applicability(skills, monkeypatch):
    from molx_agent.interfaces.pipeline import exploration

    monkeypatch.setattr(
        exploration, "run_tool", lambda tool, params, stock=None, active_pgs=None, engine=None: {"is_valid": True}
    )
    rt = planned()
    out = rt.run()
    assert out["decision_type"] == DecisionType.STRATEGY_SELECTION.value
    assert [t["tool_id"] for t in out["exploration_tools"]] == ["analyze_selectivity"]
    with pytest.raises(RetroError) as err:
        rt.explore("validate_reaction", {"reaction_smiles": ESTER_RXN})
    assert err.value.code == "tool_not_applicable"
    with pytest.raises(RetroError) as err:
        rt.explore("analyze_selectivity", {})
    assert err.value.code == "invalid_exploration_params"
    with pytest.raises(RetroError) as err:
        rt.explore("teleport", {})
    assert err.value.code == "unknown_exploration_tool"
    for i in range(5):
        res = rt.explore("analyze_selectivity", {"smiles": ASPIRIN})
        assert res["exploration_budget"] == 4 - i
    with pytest.raises(RetroError) as err:
        rt.explore("analyze_selectivity", {"smiles": ASPIRIN})
    assert err.value.code == "exploration_budget_exhausted"
    # a new decision point has a fresh budget
    out = rt.decide({"task_id": out["task_id"], "action": "use_default"})
    assert out["exploration_budget"] == 5
    assert rt.route.tasks[rt.route.decision_history[0]["task_id"]].status == TaskStatus.COMPLETED


def test_explore_and_decide_need_a_pending_decision(skills):
    rt = planned()
    for call in (
        lambda: rt.explore("analyze_molecule", {"smiles": "CCO"}),
        lambda: rt.decide({"task_id": "1", "action": "use_default"}),
    ):
        with pytest.raises(RetroError) as err:
            call()
        assert err.value.code == "no_pending_decision"


def test_matrix_matches_seed():
    from molx_agent.interfaces.pipeline.exploration import tools_for

    expected = {
        "strategy_selection": ["analyze_selectivity"],
        "disconnection_decision": [
            "assess_feasibility",
            "analyze_selectivity",
            "analyze_molecule",
            "validate_reaction",
            "recommend_protecting_groups",
        ],
        "validation_judgment": [
            "assess_feasibility",
            "analyze_selectivity",
            "check_availability",
            "recommend_protecting_groups",
        ],
        "repair_judgment": ["assess_feasibility", "validate_reaction", "recommend_protecting_groups"],
        "recursion_decision": ["analyze_selectivity", "analyze_molecule", "check_availability"],
    }
    for dtype, tools in expected.items():
        assert [t["tool_id"] for t in tools_for(DecisionType(dtype))] == tools


def test_limits_constants():
    from molx_agent.interfaces.pipeline import limits

    assert (
        LIMITS.MAX_DEPTH,
        LIMITS.MW_TERMINAL,
        LIMITS.MAX_REPAIR_RETRIES,
        LIMITS.MAX_EXPLORATION_CALLS,
        LIMITS.MAX_GRAPH_DEPTH,
        LIMITS.MAX_TOTAL_TASKS,
    ) == (7, 120.0, 3, 5, 20, 50)
    assert (limits.CONFIDENCE_THRESHOLD, limits.DEFAULT_MAX_BYPRODUCTS, limits.DEFAULT_MAX_PROPOSALS) == (
        0.3,
        3,
        5,
    )
    from molx_agent.chem import reaction_validation

    assert reaction_validation.DEFAULT_MAX_BYPRODUCTS == limits.DEFAULT_MAX_BYPRODUCTS  # one value everywhere
    assert [limits.SA_THRESHOLDS.classify(x) for x in (2.19, 2.2, 3.49, 3.5)] == [
        "purchasable",
        "easily_synthesizable",
        "easily_synthesizable",
        "complex",
    ]


class IodoChain(ScriptedSkills):
    """I-C(n) is made from I-C(n-1) and methane: every level decomposes (SA 4.0, MW > 120, not in stock)."""

    def __call__(self, name: str, args: dict, engine=None) -> SkillResult:
        if name == "analyze_molecule":
            return SkillResult.ok(
                {"molecule_info": {"smiles": args["smiles"], "atom_bond_map": {"strategic_bonds": []}}}
            )
        if name == "propose_disconnection":
            smi = args["target_smiles"]
            shorter = smi[1:]  # canonical C...CI: drop one carbon, keep the iodine (MW stays > 120)
            return SkillResult.ok(
                {
                    "proposals": [
                        {
                            "rank": 1,
                            "reaction_smiles": f"{shorter}.C>>{smi}",
                            "precursors": [shorter, "C"],
                            "score": 0.5,
                            "reaction_name": "homologation",
                            "template_id": "T9",
                        }
                    ]
                }
            )
        if name == "check_availability":
            return SkillResult.ok(
                {
                    "precursors": [
                        {
                            "smiles": s,
                            "available": False,
                            "in_stock": False,
                            "source": "sa_estimate",
                            "sa_score": 4.0,
                        }
                        for s in args["smiles_list"]
                    ]
                }
            )
        return super().__call__(name, args)


def test_recursion_stops_at_max_depth_7(monkeypatch):
    monkeypatch.setattr(executors_mod, "run_skill", IodoChain())
    rt = Orchestrator.plan("route_1", "IC" + "C" * 12)
    out = rt.run(auto=True)
    assert out["status"] == "completed", out
    assert rt.graph.longest_linear_sequence() == LIMITS.MAX_DEPTH == 7
    capped = [n for n in rt.graph.leaves() if "MAX_DEPTH" in n.decision_context.get("reason", "")]
    assert len(capped) == 1 and capped[0].depth == 7 and capped[0].role == "terminal"
    assert len(rt.route.tasks) <= LIMITS.MAX_TOTAL_TASKS


def test_run_with_a_decider_falls_back_on_bad_answers(skills):
    """An LLM-like decider: one bad answer, one crash, one None, then sensible choices."""
    answers = iter(
        [
            lambda ctx: {
                "task_id": ctx.task_id,
                "action": "choose_strategy",
                "params": {"chosen_strategy": "zigzag"},
            },
            lambda ctx: 1 / 0,
            lambda ctx: None,
        ]
    )

    def decider(ctx):
        step = next(answers, None)
        if step is not None:
            return step(ctx)
        return {
            "task_id": ctx.task_id,
            "action": "use_default",
            "reasoning": f"LLM agrees at {ctx.decision_type.value}",
        }

    rt = planned()
    out = rt.run_with(decider)
    assert out["status"] == "completed"
    history = rt.route.decision_history
    assert history[0]["fallback_from"]["code"] == "invalid_decision_params"
    assert history[1]["fallback_from"]["code"] == "decider_error"
    assert history[2]["fallback_from"]["code"] == "no_instruction"
    assert "fallback_from" not in history[3] and history[3]["reasoning_preview"].startswith("LLM agrees")


@pytest.mark.parametrize(("confidence", "low"), [(0.1, True), (0.3, False), (0.88, False), (None, False)])
def test_low_confidence_disconnections_are_flagged(skills, monkeypatch, confidence, low):
    from molx_agent.interfaces.pipeline.limits import CONFIDENCE_THRESHOLD

    original = skills.__call__

    class WithConfidence(ScriptedSkills):
        def __call__(self, name, args, engine=None):
            res = original(name, args)
            if name == "break_bond" and confidence is not None:
                return SkillResult.ok({**res.data, "confidence": confidence})
            return res

    monkeypatch.setattr(executors_mod, "run_skill", WithConfidence())
    out = _to(planned(), "validation_judgment")
    assert out["context"]["disconnection_confidence"] == confidence
    assert out["context"]["low_confidence"] is low
    flagged = [w for w in out["context"]["warnings"] if f"CONFIDENCE_THRESHOLD={CONFIDENCE_THRESHOLD}" in w]
    assert len(flagged) == int(low)


@pytest.mark.parametrize(
    ("repaired", "resolved", "next_point"),
    [(ESTER_RXN, "accept_repair", "validation_judgment"), (None, "abandon_bond", "disconnection_decision")],
)
def test_repair_use_default_follows_repaired_smiles(skills, repaired, resolved, next_point):
    skills.valid = [False, True]
    skills.repaired = repaired
    rt = planned()
    out = _to(rt, "validation_judgment")
    out = rt.decide({"task_id": out["task_id"], "action": "use_default"})
    assert rt.route.decision_history[-1]["resolved_action"] == "repair"  # is_valid=false -> repair
    assert out["decision_type"] == "repair_judgment"
    ids = [a["action_id"] for a in out["available_actions"]]
    assert ("accept_repair" in ids) is (repaired is not None)
    out = rt.decide({"task_id": out["task_id"], "action": "use_default"})
    assert rt.route.decision_history[-1]["resolved_action"] == resolved
    assert out["decision_type"] == next_point
    if repaired:
        assert out["context"]["reaction_smiles"] == repaired and out["context"]["is_valid"] is True
        out = rt.decide({"task_id": out["task_id"], "action": "accept"})
        assert out["decision_type"] == "recursion_decision"
        assert rt.graph.reaction_nodes[0].reaction_smiles == repaired
