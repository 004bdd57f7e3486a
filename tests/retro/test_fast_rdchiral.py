"""run_template: rdchiral's outcomes, computed without the stereo bookkeeping when there is no stereo."""

from __future__ import annotations

import pytest
import rdchiral.main as rdchiral_main
from rdchiral.initialization import rdchiralReactants, rdchiralReaction

import molx_agent.retro.fast_rdchiral as fast_rdchiral
from molx_agent.chem.sulfinyl_stereo import sulfinyl_stereo_in_rdchiral
from molx_agent.retro.fast_rdchiral import (
    is_stereo_free_reactants,
    is_stereo_free_template,
    run_template,
    uses_stereo_path,
)
from molx_agent.retro.named_templates import compile_template, rdchiral_quiet

AMIDE = "[C:1](=[O;D1;H0:2])-[NH;D2;+0:3]-[c:4]>>[C:1](=[O;D1;H0:2])-[OH].[NH2;D1;+0:3]-[c:4]"
ESTER = "[C:1](=[O;D1;H0:2])-[O;H0;D2;+0:3]-[C:4]>>[C:1](=[O;D1;H0:2])-[OH].[OH;D1;+0:3]-[C:4]"
CHIRAL_TEMPLATE = "[C:1]-[C@H;D3;+0:2](-[N:3])-[C:4]>>[C:1]-[C@@H;D3;+0:2](-[OH])-[C:4].[N:3]"


def _same(rxn_smarts: str, smiles: str, compiled: bool = False) -> tuple[list[str], dict]:
    """run_template's answer equals rdchiralRun's (outcomes and mapped SMILES; rdchiral with the sulfinyl copy of
    ``chem.sulfinyl_stereo``, which run_template uses); returns it (empty if none)."""
    rxn = compile_template(rxn_smarts) if compiled else rdchiralReaction(rxn_smarts)
    reactants = rdchiralReactants(smiles)
    with sulfinyl_stereo_in_rdchiral():
        expected = rdchiral_main.rdchiralRun(rxn, reactants, combine_enantiomers=False, return_mapped=True)
    got = run_template(rxn, reactants, combine_enantiomers=False, return_mapped=True)
    if not expected:  # rdchiral gives a bare [] when RDKit finds no outcome
        assert got == []
        return [], {}
    assert sorted(got[0]) == sorted(expected[0])
    assert {k: v[0] for k, v in got[1].items()} == {k: v[0] for k, v in expected[1].items()}
    # without return_mapped: the list alone
    assert run_template(rxn, reactants, combine_enantiomers=False) == got[0]
    return got


def test_stereo_free_amide_takes_the_fast_path_and_matches_rdchiral(monkeypatch):
    rxn = rdchiralReaction(AMIDE)
    reactants = rdchiralReactants("CC(=O)Nc1ccc(O)cc1")
    assert is_stereo_free_template(rxn) and is_stereo_free_reactants(reactants)
    calls = []
    monkeypatch.setattr(rdchiral_main, "rdchiralRun", lambda *a, **k: calls.append(a) or ([], {}))
    got, mapped = run_template(rxn, reactants, combine_enantiomers=False, return_mapped=True)
    assert not calls  # rdchiral itself was not asked
    assert got == ["CC(=O)O.Nc1ccc(O)cc1"]
    assert mapped[got[0]][1] == ()  # atoms_changed is not computed on the fast path
    monkeypatch.undo()
    assert _same(AMIDE, "CC(=O)Nc1ccc(O)cc1")[0] == got


def test_ring_opening_is_stitched_like_rdchiral():
    # a lactone: RDKit returns the ring as two overlapping products, which rdchiral merges into one molecule
    got, _ = _same(ESTER, "O=C1CCCCO1")
    assert got == ["O=C(O)CCCCO"]  # one molecule, not two overlapping fragments
    assert _same(ESTER, "CC1(C)CC(=O)OC2CCCCC21")[0]  # a bicyclic lactone


def test_bonds_the_template_leaves_out_are_restored_like_rdchiral():
    # a cyclopropane from 1,2-dibromoethane (a USPTO template): the ring bond between the two CH2 is in
    # neither template side; rdchiral puts it back, giving BrCCBr and not two CH2Br radicals
    cyclopropanation = ("[CH2;D2;+0:1]-[C;H0;D4;+0:3]-[CH2;D2;+0:2]>>"
                        "Br-[CH2;D2;+0:1].Br-[CH2;D2;+0:2].[CH2;D2;+0:3]")
    got, _ = _same(cyclopropanation, "CCOC(=O)C1(c2ccccc2)CC1")
    assert got == ["BrCCBr.CCOC(=O)Cc1ccccc1"]


@pytest.mark.parametrize("smiles", [
    "C[C@H](OC(C)=O)c1ccc(NC(=O)CC)cc1",  # a chiral centre in the product, outside the template
    "C/C=C/C(=O)Nc1ccc(COC(C)=O)cc1",  # a double-bond direction
    "O=C(N[C@@H](Cc1ccccc1)C(=O)O)c1ccc(NC(=O)[C@H](C)O)cc1",  # two centres, one next to an amide
    "C/C=C(\\C)C(=O)OC[C@@H]1CCCO1",  # a trisubstituted double bond and a centre
])
def test_stereo_in_the_product_takes_the_stereo_path_with_rdchirals_answer(monkeypatch, smiles):
    reactants = rdchiralReactants(smiles)
    assert not is_stereo_free_reactants(reactants)
    monkeypatch.setattr(fast_rdchiral, "_run_stereo_free", lambda *a: pytest.fail("stereo-free path taken"))
    expected = {t: rdchiral_main.rdchiralRun(rdchiralReaction(t), rdchiralReactants(smiles),
                                             combine_enantiomers=False) for t in (AMIDE, ESTER)}
    monkeypatch.setattr(rdchiral_main, "rdchiralRun", lambda *a, **k: pytest.fail("rdchiral itself was asked"))
    for template in (AMIDE, ESTER):
        got = run_template(rdchiralReaction(template), rdchiralReactants(smiles), combine_enantiomers=False)
        assert sorted(got) == sorted(expected[template])
    assert any(expected.values())
    monkeypatch.undo()
    assert _same(AMIDE, smiles)[0] or _same(ESTER, smiles)[0]  # mapped SMILES as well


def test_stereo_outcomes_keep_and_drop_exactly_what_rdchiral_does():
    # the centre next to the ester keeps its configuration in the precursor
    got, _ = _same(ESTER, "CC(=O)O[C@@H](C)c1ccccc1")
    assert got == ["CC(=O)O.C[C@H](O)c1ccccc1"]
    # a template that could have specified the centre it matches but did not: rdchiral rejects the outcome
    unspecified = "[C:1]-[CH;D3;+0:2](-[N:3])-[C:4]>>[C:1]-[CH;D3;+0:2](-[OH])-[C:4].[N:3]"
    assert _same(unspecified, "CC[C@H](N)CC(C)C")[0] == []
    assert _same(unspecified, "CCC(N)CC(C)C")[0]  # the same product without stereo matches
    # a chiral template on a chiral product: matching and inverted configurations
    for product in ("C[C@H](N)CCc1ccccc1", "C[C@@H](N)CCc1ccccc1"):
        _same(CHIRAL_TEMPLATE, product)
    # a lactone with a centre in the ring: the ring opening is stitched and the centre survives
    got, _ = _same(ESTER, "C[C@H]1CCCC(=O)O1")
    assert got and all("@" in smi for smi in got)


def test_the_stereo_path_combines_enantiomers_like_rdchiral():
    rxn_smarts = "[C:1]-[CH;D3;+0:2](-[N:3])-[C:4]>>[C:1]-[C@H;D3;+0:2](-[OH])-[C:4].[N:3]"
    for combine in (True, False):
        expected = rdchiral_main.rdchiralRun(rdchiralReaction(rxn_smarts), rdchiralReactants("CCC(N)CCc1ccccc1"),
                                             combine_enantiomers=combine)
        got = run_template(rdchiralReaction(rxn_smarts), rdchiralReactants("CCC(N)CCc1ccccc1"),
                           combine_enantiomers=combine)
        assert sorted(got) == sorted(expected)


def test_stereo_in_the_template_takes_the_stereo_path(monkeypatch):
    rxn = rdchiralReaction(CHIRAL_TEMPLATE)
    assert not is_stereo_free_template(rxn)
    monkeypatch.setattr(fast_rdchiral, "_run_stereo_free", lambda *a: pytest.fail("stereo-free path taken"))
    assert _same(CHIRAL_TEMPLATE, "CCC(N)CC")[0]


def test_a_ring_bond_query_is_not_stereo(monkeypatch):
    # "-;!@" (a bond not in a ring, as the named templates write it) carries an "@" that is not chirality: the
    # template stays on the stereo-free path and still gives rdchiral's answer; "@" in a bracket atom is chirality
    not_in_ring = "[#6:4]-[C:1](=[O:2])-;!@[N;+0:3]>>Cl-[C:1](=[O:2])-[#6:4].[N:3]"
    assert is_stereo_free_template(rdchiralReaction(not_in_ring))
    assert not is_stereo_free_template(rdchiralReaction(not_in_ring.replace("[C:1]", "[C@H:1]", 1)))
    calls = []
    real = fast_rdchiral._run_stereo_free
    monkeypatch.setattr(fast_rdchiral, "_run_stereo_free", lambda *a: calls.append(1) or real(*a))
    got, _ = _same(not_in_ring, "CC(=O)N1CCCC1")
    assert got == ["C1CCNC1.CC(=O)Cl"] and calls
    assert _same(not_in_ring, "O=C1CCCN1")[0] == []  # the lactam's C-N bond is in a ring


def test_no_match_and_deduplicating_reactions():
    # no outcome: a bare empty list, as rdchiral gives (even with return_mapped)
    assert run_template(rdchiralReaction(AMIDE), rdchiralReactants("CCO"), return_mapped=True) == []
    # the engine's compiled templates drop duplicate RunReactants outcomes before post-processing
    assert len(_same(ESTER, "CCOC(=O)CC(=O)OCC", compiled=True)[0]) == 1  # both esters give the same pair


# Drug-like products, some with stereo (the stereo path), run through the default single-step model: every
# template application (learned, general, named) must give rdchiral's answer.
DRUGS = [
    "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1",  # imatinib
    "CC(C)Cc1ccc(C(C)C(=O)O)cc1",  # ibuprofen
    "Cc1ccc(-c2cc(C(F)(F)F)nn2-c2ccc(S(N)(=O)=O)cc2)cc1",  # celecoxib
    "CCOC(=O)C1=C[C@@H](OC(CC)CC)[C@H](NC(C)=O)[C@@H](N)C1",  # oseltamivir
    "O=C(N[C@@H](Cc1ccccc1)C(=O)O)c1ccccc1",
    "COc1cc2ncnc(Nc3ccc(F)c(Cl)c3)c2cc1OCCCN1CCOCC1",  # gefitinib
    "CC(=O)Oc1ccccc1C(=O)O",  # aspirin
    "O=C1CCCN1Cc1ccc(Br)cc1",
    "N#Cc1ccc(C(O)(CCCN(C)C)c2ccc(F)cc2)cc1",
    "CCN(CC)C(=O)/C=C/c1ccc(O)cc1",
]


def test_the_single_step_model_gets_rdchirals_outcomes(monkeypatch):
    import molx_agent.retro.named_templates as named_templates
    import molx_agent.retro.single_step as single_step

    seen = {"calls": 0, "fast": 0}

    def both(rxn, target, *, combine_enantiomers=True, return_mapped=False):
        seen["calls"] += 1
        seen["fast"] += not uses_stereo_path(rxn, target)
        try:
            expected = rdchiral_main.rdchiralRun(rxn, target, combine_enantiomers=combine_enantiomers,
                                                 return_mapped=True)
        except Exception:  # noqa: BLE001 - rdchiral fails on this pair: run_template must fail too
            with pytest.raises(Exception):  # noqa: B017, PT011
                run_template(rxn, target, combine_enantiomers=combine_enantiomers, return_mapped=True)
            raise
        got = run_template(rxn, target, combine_enantiomers=combine_enantiomers, return_mapped=True)
        assert sorted(got[0]) == sorted(expected[0])
        assert {k: v[0] for k, v in got[1].items()} == {k: v[0] for k, v in expected[1].items()}
        return got if return_mapped else got[0]

    monkeypatch.setattr(single_step, "run_template", both)
    monkeypatch.setattr(named_templates, "run_template", both)
    model = single_step.load_single_step_model()
    with rdchiral_quiet():
        for smiles in DRUGS:
            assert model.predict(smiles, top_k=10)
    assert seen["calls"] > 200 and 0 < seen["fast"] < seen["calls"]


@pytest.mark.parametrize("smiles, expected", [
    # Ellman's sulfinyl imine: the sulfur is in the template (bonded to the imine N) and keeps its configuration
    ("CC(C)(C)[S@@](=O)/N=C(/C)c1ccccc1", "CC(=O)c1ccccc1.CC(C)(C)[S@](N)=O"),
    ("CC(C)(C)[S@](=O)/N=C(/C)c1ccccc1", "CC(=O)c1ccccc1.CC(C)(C)[S@@](N)=O"),
])
def test_a_sulfinyl_sulfur_in_the_template_keeps_its_configuration(smiles, expected):
    got, _ = _same("[C:1]=[N:2]-[S:3]>>[C:1]=O.[NH2:2]-[S:3]", smiles)
    assert got == [expected]


def test_a_sulfinyl_sulfur_outside_the_template_keeps_its_configuration():
    # an amide hydrolysis elsewhere in a sulfoxide: the sulfur is a spectator
    got, _ = _same(AMIDE, "C[S@@](=O)c1ccc(NC(C)=O)cc1")
    assert got == ["CC(=O)O.C[S@@](=O)c1ccc(N)cc1"]
