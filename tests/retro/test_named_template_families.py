"""Named templates that differ only in a leaving group or reagent are applied once per family.

The shared application must give exactly what applying every template as written gives: the same
precursor sets, named by the same template (the first in file order among those of the highest priority), with the
same atom-mapped precursors, stereocentres and double-bond geometry included.
"""

from __future__ import annotations

import dataclasses
import re

import pytest

from molx_agent.chem.templates import load_named_templates
from molx_agent.retro.named_templates import NamedTemplateMatcher, _split_template

#: Products that exercise the big families (biaryls, alkenyl couplings with E/Z geometry, ethers, amines,
#: amides, azoles, protecting groups) and stereocentres next to a leaving group.
PRODUCTS = [
    "Cc1ccc(-c2ccccc2)cc1",
    "COC(=O)/C=C/c1cccc(Br)c1",
    "Nc1ccc(/C=C/C(=O)OCc2ccccc2)cn1",
    "O=C1Nc2ccccc2/C1=C\\c1ccc2[nH]nnc2c1",
    "CCC[C@](CC=O)(CCc1ccccc1)OCOc1ccc(-c2ccccc2)cc1",
    "O=C(c1cccc2ccccc12)N1CC[C@H](NCc2ccnc3ccccc23)C[C@H]1Cc1ccccc1",
    "CN(C)Cc1ccc(OC2CCCC2)cc1",
    "CC(=O)Nc1ccc(OCc2ccccc2)cc1",
    "Cn1ccnc1-c1ccc(N2CCOCC2)nc1",
    "O=C(NC1CCN(Cc2ccccc2)CC1)c1ccc(F)cc1",
    "c1ccc(-n2ccc3ccccc32)cc1",
    "NC(=O)c1cccc(C#Cc2ccccn2)c1",
    "N#Cc1ccc(OC2CCCCC2)cn1",
    "O=C(O)c1ccc(Cl)cc1",
    "NCc1ccc(-c2cn[nH]c2)cc1",
    "OCC(O)c1ccccc1",
    "C[C@H](N)C(=O)OCc1ccccc1",
    "CC(C)(C)OC(=O)N1CCC(Oc2ccc(Cl)nn2)CC1",
    "O=C(Cl)c1ccc(C#Cc2cccc(F)c2)cc1",
    "COc1ccc(B2OC(C)(C)C(C)(C)O2)cc1CCN(C)C",
    "CN(C[C@H]1CC[C@H](c2nc3ccccc3n2C)CC1)C(=O)OCc1ccccc1",  # a trans-1,4-cyclohexane: one SMILES for its ring geometry
]


def _same_entry(a, b) -> bool:
    """Same naming template and the same mapped precursors; a leaving group's own atom-map numbers (900 and up,
    atoms absent from the product) may be swapped between two symmetric sites."""
    def strip(mapped: str) -> str:
        return re.sub(r":9\d\d\]", ":900]", mapped)

    return a[0] == b[0] and strip(a[1]) == strip(b[1])


@pytest.fixture(scope="module")
def matchers():
    templates = load_named_templates()
    return NamedTemplateMatcher(templates, share=True), NamedTemplateMatcher(templates, share=False)


def test_families_cut_the_number_of_template_applications(matchers):
    shared, single = matchers
    assert single.n_applications == len(single.templates)
    assert shared.n_applications < 0.85 * single.n_applications


@pytest.mark.parametrize("product", PRODUCTS)
def test_shared_application_gives_exactly_the_individual_results(matchers, product):
    shared, single = matchers
    a, b = shared.precursor_table(product), single.precursor_table(product)
    assert a, f"no named template applies to {product}"
    assert set(a) == set(b)
    for key in a:
        assert _same_entry(a[key], b[key]), key  # the same template names it, with the same mapped precursors


def test_a_template_of_higher_priority_names_the_precursors(matchers):
    """Mefenamic acid from 2,3-dimethylaniline and 2-chlorobenzoic acid is a copper (Ullmann-Goldberg) amination: the
    narrow template G363 (priority 1) names it although the broad S_N_Ar and Buchwald-Hartwig templates before it in
    file order give the same precursors; 2-chloronicotinic acid (niflumic acid), which its ring nitrogen activates,
    stays S_N_Ar."""
    for matcher in matchers:
        table = matcher.precursor_table("Cc1cccc(Nc2ccccc2C(=O)O)c1C")
        assert table[("Cc1cccc(N)c1C", "O=C(O)c1ccccc1Cl")][0].id == "G363_ullmann_goldberg_halobenzoic_acid_cl_retro"
        assert table[("Cc1cccc(N)c1C", "O=C(O)c1ccccc1Br")][0].id == "G364_ullmann_goldberg_halobenzoic_acid_br_retro"
        niflumic = matcher.precursor_table("OC(=O)c1cccnc1Nc1cccc(C(F)(F)F)c1")
        assert niflumic[("Nc1cccc(C(F)(F)F)c1", "O=C(O)c1cccnc1Cl")][0].id == "G27_snar_amine_retro"
    # named so, the step is not warned for the acid it keeps (as a Buchwald-Hartwig amination it was)
    from molx_agent.chem.fg_warnings import step_selectivity

    bromo = ("Cc1cccc(N)c1C", "O=C(O)c1ccccc1Br")
    name = matchers[0].precursor_table("Cc1cccc(Nc2ccccc2C(=O)O)c1C")[bromo][0].name
    assert step_selectivity(list(bromo), "Cc1cccc(Nc2ccccc2C(=O)O)c1C", name) == []
    # the broad templates do give mefenamic acid's precursors: without the priority the first of them would name it
    templates = load_named_templates()
    plain = NamedTemplateMatcher([dataclasses.replace(t, priority=0) for t in templates])
    table = plain.precursor_table("Cc1cccc(Nc2ccccc2C(=O)O)c1C")
    assert table[("Cc1cccc(N)c1C", "O=C(O)c1ccccc1Cl")][0].id == "G27_snar_amine_retro"


def test_split_template_finds_leaving_groups_and_reagents():
    product_side, core, groups, _ = _split_template("[c:1]-;!@[c:2]>>[c:1]-Br.[c:2]-B(O)O")
    assert product_side == "[c:1]-;!@[c:2]"
    assert [g[0] for g in groups] == [1, 2] and "[1*]" in core and "[2*]" in core
    _, core, _, reagents = _split_template("[#6:1]-[C:2](=[O:3])-[Cl;X1]>>[#6:1]-[C:2](=[O:3])-[OH].O=S(Cl)Cl")
    assert len(reagents) == 1 and "S" not in core
    # templates whose unmapped atoms are not single-bonded leaving groups run as written: a double-bonded
    # oxygen (ring synthesis from a carbonyl), an atom bridging two mapped atoms, two groups on one atom
    assert _split_template("[c:1]1:[n:2]:[c:3]:[c:4]:[nH:5]:1>>[C:1](=O)-[N:2].[C:3]-[C:4]-[N:5]") is None
    assert _split_template("[C:1]-[C:2]>>[C:1]-O-[C:2]") is None
    assert _split_template("[C:1]=[C:2]>>[C:1](Br)Br.[C:2]") is None
    assert _split_template("[#6:1]-[C:2]#[N:3]>>[#6:1]-[C:2](=O)-[N:3]") is None  # no leaving group at all


def test_every_template_example_gives_the_same_table_shared_or_not(matchers):
    """Each template's own textbook product (tests/chem/test_templates_examples.py): the family path and the
    template run as written agree on every precursor set, its naming template and its mapped precursors."""
    from tests.chem.test_templates_examples import EXAMPLES

    shared, single = matchers
    for template_id, product, _expected in EXAMPLES:
        a, b = shared.precursor_table(product), single.precursor_table(product)
        assert set(a) == set(b), template_id
        assert all(_same_entry(a[k], b[k]) for k in a), template_id


def test_table_order_does_not_depend_on_the_hash_seed():
    """rdchiral returns its outcomes from a set; the matcher sorts them, so every process lists the same order."""
    import subprocess
    import sys

    code = ("from molx_agent.retro.named_templates import NamedTemplateMatcher as M;"
            "print(list(M.load().precursor_table('Cc1ccc(-c2ccc(OCc3ccccc3)cc2)cc1')))")
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**__import__("os").environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")]
    assert runs[0] and runs[0] == runs[1]


def test_duplicate_outcomes_are_dropped_without_changing_rdchirals_results():
    """``compile_template`` drops RDKit's symmetric duplicate matches (keyed in place) before rdchiral sees them;
    rdchiral's outcomes and atom-mapped outcomes are those of the plain template."""
    from rdchiral.initialization import rdchiralReactants, rdchiralReaction
    from rdchiral.main import rdchiralRun

    from molx_agent.retro.named_templates import compile_template, rdchiral_quiet

    cases = [  # (retro template, product): symmetric groups give several identical matches
        ("[C:1](=[O:2])-[O;H0;D2;+0:3]-[CH3;D1;+0:4]>>[C:1](=[O:2])-[OH;D1;+0:3].[CH3;D1;+0:4]-[OH;D1;+0]",
         "COC(=O)c1ccc(C(=O)OC)cc1"),
        ("[c:1]-[C:2](-[F:3])(-[F:4])-[F:5]>>[c:1]-I.[C:2](-[F:3])(-[F:4])(-[F:5])-[Si](C)(C)C",
         "FC(F)(F)c1ccc(C(F)(F)F)cc1"),
        ("[C:1](=[O:2])-[NH;D2;+0:3]-[c:4]>>[C:1](=[O:2])-[OH;D1;+0].[NH2;D1;+0:3]-[c:4]",
         "CC(=O)Nc1ccc(NC(C)=O)cc1"),
    ]
    dropped = []
    for template, product in cases:
        with rdchiral_quiet():
            plain = rdchiralRun(rdchiralReaction(template), rdchiralReactants(product), combine_enantiomers=False,
                                return_mapped=True)
            deduped = compile_template(template)
            raw = deduped.rxn._reaction.RunReactants((rdchiralReactants(product).reactants_achiral,))
            kept = deduped.rxn.RunReactants((rdchiralReactants(product).reactants_achiral,))
            fast = rdchiralRun(deduped, rdchiralReactants(product), combine_enantiomers=False, return_mapped=True)
        assert plain[0], template
        assert sorted(fast[0]) == sorted(plain[0])
        assert {k: v[0] for k, v in fast[1].items()} == {k: v[0] for k, v in plain[1].items()}
        assert 0 < len(kept) <= len(raw)
        dropped.append(len(raw) - len(kept))
    assert dropped[0] == 0 and dropped[1] > 0  # two ester sites are two outcomes; CF3's 6 symmetric matches are one


def test_only_outcomes_that_match_the_same_atoms_are_keyed_and_only_identical_ones_dropped(monkeypatch):
    """``UniqueOutcomes`` keys (canonical SMILES) only outcomes whose template atoms matched the same product atoms:
    it never drops an outcome that is not identical to a kept one, and it may keep an identical one that matched
    other atoms (a template's unchanged neighbour atom matched on either side)."""
    from rdchiral.initialization import rdchiralReactants

    import molx_agent.retro.named_templates as named_templates
    from molx_agent.retro.named_templates import _outcome_key, compile_template, rdchiral_quiet

    cases = [
        ("[c:1]-[C:2](-[F:3])(-[F:4])-[F:5]>>[c:1]-I.[C:2](-[F:3])(-[F:4])(-[F:5])-[Si](C)(C)C",
         "FC(F)(F)c1ccc(C(F)(F)F)cc1"),  # 6 symmetric matches per CF3: one outcome each
        ("[C:1](=[O:2])-[O;H0;D2;+0:3]-[CH3;D1;+0:4]>>[C:1](=[O:2])-[OH;D1;+0:3].[CH3;D1;+0:4]-[OH;D1;+0]",
         "COC(=O)c1ccc(C(=O)OC)cc1"),  # two different sites: nothing to key
        ("[c:1]:[c:2]-[Br;D1;+0:3]>>[c:1]:[c:2].[Br;D1;+0:3]-Br", "Brc1ccc(Br)cc1"),  # ring neighbours both ways
    ]
    keyed = []
    calls: list[int] = []
    monkeypatch.setattr(named_templates, "_outcome_key", lambda outcome: calls.append(1) or _outcome_key(outcome))
    for template, product in cases:
        calls.clear()
        with rdchiral_quiet():
            rxn = compile_template(template)
            achiral = rdchiralReactants(product).reactants_achiral
            raw = rxn.rxn._reaction.RunReactants((achiral,))
            kept = rxn.rxn.RunReactants((achiral,))
        full: dict[str, int] = {}
        for i, outcome in enumerate(rxn.rxn._reaction.RunReactants((achiral,))):
            full.setdefault(_outcome_key(outcome), i)
        kept_keys = [_outcome_key(o) for o in kept]
        assert list(dict.fromkeys(kept_keys)) == list(full)  # every distinct outcome, first ones in RDKit's order
        assert len(calls) <= len(raw)
        keyed.append((len(raw), len(kept), len(calls)))
    assert keyed[0] == (12, 2, 12)  # every CF3 match shares its atoms with five others: one outcome per CF3
    assert keyed[1] == (2, 2, 0)  # the two esters match different atoms: no key computed
    assert keyed[2] == (4, 4, 0)  # each C-Br with either ortho carbon: identical pairs that matched other atoms


def test_the_matcher_proposes_no_precursors_that_lose_product_atoms(matchers):
    """A substituted benzyl ether is no benzyl-protected alcohol: the table holds no plain benzyl bromide for it
    (before the fix the benzyl template removed the ring's chlorine and fluorine and proposed BnBr + the phenol)."""
    product = "Nc1cnc(-c2ccc(C3CCC3)c(OCc3cc(F)ccc3Cl)c2F)cn1"
    for matcher in matchers:
        table = matcher.precursor_table(product)
        assert table  # other templates still apply (the biaryl, the aryl ether)
        assert not [canon for canon in table if "BrCc1ccccc1" in canon]


@pytest.mark.parametrize("product, named", [
    # a drawn centre from the ketone: the asymmetric reduction names the precursor set (priority 1)
    ("C[C@H](O)c1ccccc1", "G368_asymmetric_ketone_reduction_retro"),
    # the racemate and benzhydrol (no stereocentre): the plain reduction, never the asymmetric catalyst
    ("CC(O)c1ccccc1", "G61_nabh4_ketone_reduction_retro"),
    ("OC(c1ccccc1)c1ccccc1", "G61_nabh4_ketone_reduction_retro"),
])
def test_a_stereo_setting_template_names_only_a_centre_the_step_makes(product, named):
    matcher = NamedTemplateMatcher.load()
    ketone = {"C[C@H](O)c1ccccc1": ("CC(=O)c1ccccc1",), "CC(O)c1ccccc1": ("CC(=O)c1ccccc1",),
              "OC(c1ccccc1)c1ccccc1": ("O=C(c1ccccc1)c1ccccc1",)}[product]
    assert matcher.precursor_table(product)[ketone][0].id == named
    ids = {match.id for match, _ in matcher.precursor_table(product).values()}
    assert ("G368_asymmetric_ketone_reduction_retro" in ids) == ("@" in product)
