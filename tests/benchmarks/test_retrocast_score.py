"""``benchmarks/retrocast_score.py`` and the resumable records of ``benchmarks/multistep.py``.

Fixture (``data/``): three real targets of RetroCast ``ref-lin-600`` (n5-09332 and n5-09641, two steps; n5-07963,
three steps) in the benchmark's own format, and a stock made of their reference leaves.  The "predictions" are the
reference routes themselves, written by the benchmark's own route writer (``multistep.route_trees``), and a wrong
route (the target made in one step from the reference leaves: solvable, not the reference).  No real search runs:
the resume tests search with the toy single-step model (``DictSingleStepModel``) holding the reference steps.
Tests that score need ``retrocast`` (the ``bench`` extra) and skip without it.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
from pathlib import Path

import pytest

from molx_agent.retro.route import RetroGraph

DATA = Path(__file__).parent / "data"
BENCH = DATA / "ref3.json.gz"
LEAVES = DATA / "ref3_leaves.smi"
A, B, C = "n5-09332", "n5-09641", "n5-07963"  # route lengths 2, 2, 3


@pytest.fixture
def ms(repo_script):
    return repo_script("benchmarks/multistep.py")


@pytest.fixture
def rcs(repo_script):
    return repo_script("benchmarks/retrocast_score.py")


@pytest.fixture
def targets(ms):
    return ms.load_targets(BENCH)


def _leaves(node):
    step = node.get("synthesis_step")
    if not step:
        return [node["smiles"]]
    return [leaf for kid in step["reactants"] for leaf in _leaves(kid)]


def reference_graph(node):
    graph = RetroGraph.new(node["smiles"])

    def walk(gid, n):
        step = n.get("synthesis_step")
        if not step:
            return
        rxn = graph.add_reaction(gid, [k["smiles"] for k in step["reactants"]])
        for cid, k in zip(rxn.reactant_nodes, step["reactants"], strict=True):
            walk(cid, k)

    walk(graph.target_id, node)
    return graph


def wrong_graph(node):
    """The target in one step from all the reference leaves: every leaf in stock, not the reference route."""
    graph = RetroGraph.new(node["smiles"])
    graph.add_reaction(graph.target_id, sorted(set(_leaves(node))))
    return graph


def record(ms, tid, target, graphs):
    """A multistep.py record of ``graphs`` (best first), scored by our rule."""
    ref = target["ground_truth"]["target"]
    full, block = ms.reference_reactions(ref), ms.reference_reactions(ref, block=True)
    for i, g in enumerate(graphs, 1):
        g.metadata["rank"] = i
        g.metadata["route"] = {"confidence": "high", "issues": []}  # judged, as the search's routes are
    return {"id": tid, "smiles": target["smiles"], "route_length": target["route_length"], "solved": bool(graphs),
            "match_rank": next((i for i, g in enumerate(graphs, 1) if ms.graph_reactions(g) == full), None),
            "match_rank_connectivity": next((i for i, g in enumerate(graphs, 1)
                                             if ms.graph_reactions(g, True) == block), None),
            "time_s": 0.0, "routes": ms.route_trees(graphs)}


@pytest.fixture
def records(ms, targets):
    ref = {t: targets[t]["ground_truth"]["target"] for t in (A, B, C)}
    return [record(ms, A, targets[A], [reference_graph(ref[A])]),
            record(ms, B, targets[B], [wrong_graph(ref[B])]),
            record(ms, C, targets[C], [wrong_graph(ref[C]), reference_graph(ref[C])])]


def stock_keys(rc, smiles):
    return [rc.get_inchi_key(s) for s in smiles]


def test_route_writer_gives_aizynth_trees_with_rank_and_score(ms, targets):
    graph = reference_graph(targets[C]["ground_truth"]["target"])
    graph.metadata.update(rank=1, route_score=2.5)
    (tree,) = ms.route_trees([graph])
    assert tree["type"] == "mol" and tree["smiles"] == targets[C]["smiles"]
    assert tree["metadata"] == {"rank": 1, "score": 2.5, "n_steps": 3}
    graph.metadata["route"] = {"confidence": "medium", "issues": [{"code": "probable_leaf"}, {"code": "low_score_step"},
                                                                  {"code": "probable_leaf"}]}
    (judged,) = ms.route_trees([graph])
    assert judged["metadata"] == {"rank": 1, "score": 2.5, "n_steps": 3, "confidence": "medium",
                                  "issues": ["low_score_step", "probable_leaf"]}
    rxn = tree["children"][0]
    assert rxn["type"] == "reaction" and {k["smiles"] for k in rxn["children"]} == {
        "CCOC(OCC)OCC", "CNc1cc(Br)ncc1N"}
    assert set(tree) <= {"type", "smiles", "in_stock", "children", "metadata"}  # no bulky metadata


def test_retrocast_scores_the_reference_as_a_match_and_the_wrong_route_as_none(rcs, records, targets):
    rc = pytest.importorskip("retrocast")
    keys = stock_keys(rc, LEAVES.read_text().split())
    out = rcs.score_records(records, targets, keys, n_boot=200, seed=42, rc=rc)
    for label in ("full", "full_exact", "connectivity"):
        assert out["retrocast_ranks"][label] == {A: 1, B: None, C: 2}, label
        assert out["retrocast"][label]["n_adaptation_failures"] == 0
        overall = out["retrocast"][label]["overall"]
        assert overall["solvability"]["value"] == 100.0
        assert (overall["top1"]["value"], overall["top5"]["value"], overall["top10"]["value"]) == (33.3, 66.7, 66.7)
        assert overall["top1"]["ci_low"] <= 33.3 <= overall["top1"]["ci_high"]
    # our scorer agrees, target by target
    assert [r["match_rank"] for r in records] == [1, None, 2]
    assert (out["ours"]["top1"], out["ours"]["top5"], out["ours"]["solvability"]) == (33.3, 66.7, 100.0)
    assert out["top10_disagreement"] == {"rule": out["top10_disagreement"]["rule"], "n": 0, "ids": []}
    # per route length: RetroCast's strata carry bootstrap intervals
    strata = out["retrocast"]["full"]["by_stratum"]
    assert set(strata) == {"depth 2", "depth 3"}
    assert strata["depth 2"]["top1"]["n"] == 2 and strata["depth 2"]["top1"]["value"] == 50.0
    assert strata["depth 3"]["top10"]["value"] == 100.0
    md = rcs.markdown(out)
    assert "| ours (InChIKey reaction sets) | 100.0 | 33.3 | 66.7 | 66.7 |" in md
    assert "| 3 | 1 |" in md


def test_a_leaf_outside_the_stock_fails_solvability_and_a_disagreement_is_listed(rcs, records, targets):
    rc = pytest.importorskip("retrocast")
    keys = stock_keys(rc, [s for s in LEAVES.read_text().split() if s != "CN(C)C=O"])  # a leaf of B only
    records[0]["match_rank"] = None  # our scorer (wrongly) misses A: the comparison must say so
    out = rcs.score_records(records, targets, keys, n_boot=200, seed=42, rc=rc)
    assert out["retrocast"]["full"]["overall"]["solvability"]["value"] == 66.7
    assert out["top10_disagreement"]["n"] == 1 and out["top10_disagreement"]["ids"] == [A]


def test_a_route_retrocast_cannot_read_is_counted_and_never_a_match(rcs, records, targets):
    rc = pytest.importorskip("retrocast")
    bad = json.loads(json.dumps(records[0]["routes"][0]))
    bad["children"][0]["children"][0]["smiles"] = "C1CC"  # an unclosed ring
    records[0]["routes"] = [bad, *records[0]["routes"]]
    records[0]["routes"][1]["metadata"]["rank"] = 2
    out = rcs.score_records(records, targets, stock_keys(rc, LEAVES.read_text().split()), n_boot=100, rc=rc)
    assert out["retrocast"]["full"]["n_adaptation_failures"] == 1
    assert out["retrocast"]["full"]["adaptation_failure_codes"] == ["chem.invalid_smiles"]
    assert out["retrocast_ranks"]["full"][A] == 1  # ranks count the routes that satisfy the task


def test_retrocast_score_cli_writes_json_and_markdown(rcs, records, tmp_path, capsys):
    pytest.importorskip("retrocast")
    rec_file = tmp_path / "records.jsonl"
    rec_file.write_text(json.dumps({"meta": {"mode": "cli-defaults"}}) + "\n"
                        + "".join(json.dumps(r) + "\n" for r in records))
    out, md = tmp_path / "rc.json", tmp_path / "rc.md"
    assert rcs.main([str(rec_file), "--benchmark", str(BENCH), "--stock", str(LEAVES), "--n-boot", "100",
                     "--out", str(out), "--md", str(md)]) == 0
    data = json.loads(out.read_text())
    assert data["n_targets"] == 3 and data["search"] == {"mode": "cli-defaults"}
    assert data["retrocast"]["full"]["overall"]["top1"]["value"] == 33.3
    assert md.read_text().startswith("### RetroCast scoring: ref-lin-600-fixture")


def test_retrocast_score_excludes_listed_ids(rcs, records, tmp_path, capsys):
    pytest.importorskip("retrocast")
    rec_file = tmp_path / "records.jsonl"
    rec_file.write_text(json.dumps({"meta": {}}) + "\n" + "".join(json.dumps(r) + "\n" for r in records))
    ids = tmp_path / "dev.txt"
    ids.write_text(f"{A}\n\n")
    out = tmp_path / "rc.json"
    assert rcs.main([str(rec_file), "--benchmark", str(BENCH), "--stock", str(LEAVES), "--n-boot", "50",
                     "--exclude-ids-file", str(ids), "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["n_targets"] == 2 and data["excluded"] == {"files": [str(ids)], "n_records": 1}
    every = tmp_path / "all.txt"
    every.write_text("\n".join([A, B, C]))
    assert rcs.main([str(rec_file), "--benchmark", str(BENCH), "--stock", str(LEAVES),
                     "--exclude-ids-file", str(every)]) == 2
    assert "3 read, all excluded" in capsys.readouterr().err
    assert rcs.main([str(rec_file), "--benchmark", str(BENCH), "--stock", str(LEAVES),
                     "--exclude-ids-file", str(tmp_path / "nope.txt")]) == 2
    assert "ids file not found" in capsys.readouterr().err


def test_retrocast_score_bad_input_exits_2_with_one_line(rcs, tmp_path, capsys, monkeypatch):
    assert rcs.main([str(tmp_path / "missing.jsonl"), "--benchmark", str(BENCH), "--stock", str(LEAVES)]) == 2
    err = capsys.readouterr().err.strip()
    if "not installed" not in err:  # retrocast present: the missing file is the error
        assert err == f"error: records file not found: {tmp_path / 'missing.jsonl'}"
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    monkeypatch.setitem(__import__("sys").modules, "retrocast", None)  # not installed
    assert rcs.main([str(empty), "--benchmark", str(BENCH), "--stock", str(LEAVES)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.endswith("(install the bench extra: uv sync --extra bench)")


def test_retrocast_score_rejects_ids_not_in_the_benchmark(rcs, records, tmp_path, capsys):
    pytest.importorskip("retrocast")
    rec_file = tmp_path / "r.json"
    rec_file.write_text(json.dumps({"summary": {}, "records": [{**records[0], "id": "n5-nope"}]}))
    assert rcs.main([str(rec_file), "--benchmark", str(BENCH), "--stock", str(LEAVES)]) == 2
    assert "not in the benchmark file, e.g. n5-nope" in capsys.readouterr().err
    cut = tmp_path / "r.jsonl.gz"  # a compressed records file cut short
    cut.write_bytes(gzip.compress((json.dumps(records[0]) + "\n").encode())[:-12])
    assert rcs.main([str(cut), "--benchmark", str(BENCH), "--stock", str(LEAVES)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: cannot read records {cut}") and "\n" not in err


# -- multistep.py: CLI defaults, records, resume ------------------------------------------------------------------
def _args(ms, *extra):
    return ms.build_parser().parse_args(["--benchmark", str(BENCH), "--stock", str(LEAVES), *extra])


def test_default_mode_is_the_cli_search_config(ms):
    import dataclasses

    from molx_agent.cli.route import DEFAULTS

    overrides, changed = ms.search_overrides(_args(ms, "--time-limit", "60"))
    assert overrides == {"time_limit": 60.0, "n_routes": 10} and changed == []
    expected = dataclasses.asdict(dataclasses.replace(DEFAULTS, time_limit=60.0, n_routes=10))
    assert ms.effective_config(overrides) == {k: list(v) if isinstance(v, tuple) else v for k, v in expected.items()}
    overrides, changed = ms.search_overrides(_args(ms, "--bench-defaults", "--early-stop", "--knob", "leaf_cost=2"))
    assert overrides["max_expansions"] == 100_000 and overrides["stop_at_n_routes"] is True
    assert changed == ["leaf_cost", "max_expansions", "stop_at_n_routes"]


def _toy_init(ms, targets, calls, shortcuts=False):
    """multistep._init on the toy model (the reference steps of the fixture targets; with ``shortcuts``, also each
    target in one step from its reference leaves) and the fixture stock."""
    from molx_agent.retro.engine import RetroEngine
    from molx_agent.retro.search_types import SearchConfig
    from molx_agent.retro.stock import FileStock
    from molx_agent.retro.toy_model import DictSingleStepModel

    table: dict[str, list] = {}

    def walk(n):
        step = n.get("synthesis_step")
        if step:
            table.setdefault(n["smiles"], []).append(([k["smiles"] for k in step["reactants"]], 0.9, "ref"))
            for k in step["reactants"]:
                walk(k)

    for t in targets.values():
        walk(t["ground_truth"]["target"])
        if shortcuts:
            table[t["smiles"]].append((sorted(set(_leaves(t["ground_truth"]["target"]))), 0.5, "shortcut"))

    def init(stock_path, n_neighbours=None):
        model = DictSingleStepModel(table)
        # the toy steps carry no atom maps and the forward check rejects C's imidazole closure: no validation here
        engine = RetroEngine(model=model, stock=FileStock(stock_path), config=SearchConfig(validate=False))
        ms._STATE.update(engine=engine, model=model, stock=engine.stock)

    real = ms.run_target

    def counted(tid, target, overrides):
        calls.append(tid)
        if tid == "boom":
            raise RuntimeError("worker died")
        return real(tid, target, overrides)

    return init, counted


def test_the_benchmark_search_returns_the_routes_molx_agent_route_returns(ms, targets, monkeypatch):
    from molx_agent.cli.route import run_route
    from molx_agent.retro.export import route_signature

    init, _ = _toy_init(ms, targets, [], shortcuts=True)
    init(str(LEAVES))
    for tid in (A, C):
        rec = ms.run_target(tid, targets[tid], {"time_limit": 60.0, "n_routes": 10})
        payload = run_route(targets[tid]["smiles"], engine=ms._STATE["engine"], time_limit=60.0, n_routes=10,
                            write_files=False)
        assert len(rec["routes"]) == 2
        assert [route_signature(t) for t in rec["routes"]] == [route_signature(t) for t in payload["routes"]]
        assert [t["metadata"]["rank"] for t in rec["routes"]] == [1, 2]


def test_records_are_written_per_target_and_resume_skips_done_ids(ms, rcs, targets, tmp_path, monkeypatch, capsys):
    calls: list[str] = []
    init, counted = _toy_init(ms, targets, calls)
    monkeypatch.setattr(ms, "_init", init)
    monkeypatch.setattr(ms, "run_target", counted)
    ids = tmp_path / "ids.txt"
    ids.write_text(f"{A}\n{B}\n")
    rec, out = tmp_path / "r.jsonl", tmp_path / "out.json"
    base = ["--benchmark", str(BENCH), "--stock", str(LEAVES), "--time-limit", "2", "--records", str(rec)]
    assert ms.main([*base, "--ids-file", str(ids), "--out", str(out)]) == 0
    assert calls == [A, B]
    lines = [json.loads(x) for x in rec.read_text().splitlines()]
    assert lines[0]["meta"]["mode"] == "cli-defaults" and [x["id"] for x in lines[1:]] == [A, B]
    assert all(x["match_rank"] == 1 and x["routes"][0]["metadata"]["rank"] == 1 for x in lines[1:])
    # a second run on the same file without --resume is refused (nothing is overwritten)
    assert ms.main([*base, "--ids-file", str(ids)]) == 2
    assert "pass --resume" in capsys.readouterr().err
    # a kill leaves a torn last line; resuming skips A and B, runs C, and summarises all three
    with rec.open("a") as fh:
        fh.write('{"id": "n5-07963", "solv')
    ids.write_text(f"{A}\n{B}\n{C}\n")
    assert ms.main([*base, "--ids-file", str(ids), "--resume", "--out", str(out)]) == 0
    assert calls == [A, B, C]
    data = json.loads(out.read_text())
    assert sorted(r["id"] for r in data["records"]) == sorted([A, B, C])
    assert data["summary"]["n_targets"] == 3 and data["summary"]["top1_pct"] == 100.0
    # resuming with another configuration is refused
    assert ms.main([*base[:4], "--time-limit", "3", "--records", str(rec), "--ids-file", str(ids), "--resume"]) == 2
    assert "time_limit" in capsys.readouterr().err
    # ... and so is resuming with the other single-step model (the policy switch is recorded in the file)
    assert lines[0]["meta"]["single_step"] == {"policy": ms.single_step_info()["policy"]}
    monkeypatch.setattr(ms, "single_step_info", lambda: {"policy": not lines[0]["meta"]["single_step"]["policy"]})
    assert ms.main([*base, "--ids-file", str(ids), "--resume"]) == 2
    assert "single_step" in capsys.readouterr().err
    # RetroCast agrees with our scorer on the toy search's routes
    if importlib.util.find_spec("retrocast") is not None:
        rc_out = tmp_path / "rc.json"
        assert rcs.main([str(rec), "--benchmark", str(BENCH), "--stock", str(LEAVES), "--n-boot", "100",
                         "--out", str(rc_out)]) == 0
        scored = json.loads(rc_out.read_text())
        assert scored["retrocast_ranks"]["full_exact"] == {A: 1, B: 1, C: 1}
        assert scored["top10_disagreement"]["n"] == 0


def test_a_failing_target_is_an_error_record_and_is_run_again_on_resume(ms, targets, tmp_path, monkeypatch):
    calls: list[str] = []
    init, counted = _toy_init(ms, targets, calls)
    monkeypatch.setattr(ms, "_init", init)
    monkeypatch.setattr(ms, "run_target", counted)
    jobs = [(A, targets[A], {"time_limit": 2.0, "n_routes": 10}), ("boom", targets[B], {"time_limit": 2.0})]
    got = ms.run_jobs(ms._run_packed, jobs, LEAVES, 1)
    assert [r["id"] for r in got] == [A, "boom"]
    assert got[1]["error"] == "RuntimeError: worker died" and got[1]["solved"] is False
    rec = tmp_path / "r.jsonl"
    rec.write_text(json.dumps({"id": A, "solved": True, "time_s": 1.0}) + "\n"
                   + json.dumps({"id": B, "solved": False, "error": "RuntimeError: x", "time_s": 0.0}) + "\n")
    ids = tmp_path / "ids.txt"
    ids.write_text(f"{A}\n{B}\n")
    assert ms.main(["--benchmark", str(BENCH), "--stock", str(LEAVES), "--time-limit", "2", "--records", str(rec),
                    "--ids-file", str(ids), "--resume"]) == 0
    assert calls == [A, "boom", B]  # A was done; B's error record is run again
    _, final = ms.read_records(rec)
    assert {r["id"]: "error" in r for r in final} == {A: False, B: False}
    packed = tmp_path / "r.jsonl.gz"  # a finished run kept compressed reads the same, and is never appended to
    packed.write_bytes(gzip.compress(rec.read_bytes()))
    assert ms.read_records(packed) == ms.read_records(rec)
    assert ms.main(["--benchmark", str(BENCH), "--stock", str(LEAVES), "--records", str(packed), "--resume"]) == 2


def test_multistep_bad_input_exits_2(ms, tmp_path, capsys):
    assert ms.main(["--benchmark", str(BENCH), "--stock", str(LEAVES), "--resume"]) == 2
    assert capsys.readouterr().err.strip() == "error: --resume needs --records FILE.jsonl"
    assert ms.main(["--benchmark", str(tmp_path / "none.json.gz")]) == 2
    assert "benchmark file not found" in capsys.readouterr().err
    ids = tmp_path / "ids.txt"
    ids.write_text("n5-nope\n")
    assert ms.main(["--benchmark", str(BENCH), "--stock", str(LEAVES), "--ids-file", str(ids)]) == 2
    assert "not in the benchmark" in capsys.readouterr().err
