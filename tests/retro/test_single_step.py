"""The single-step model: packaged data, obvious disconnections, uniqueness, bad input, the protocol."""

from __future__ import annotations

import gzip
import json
from dataclasses import FrozenInstanceError

import numpy as np
import pytest
from rdkit import Chem

from molx_agent.errors import ChemistryError
from molx_agent.retro.single_step import (
    Prediction,
    SingleStepModel,
    TemplateKNNModel,
    canonical_reactant_set,
    load_single_step_model,
)
from molx_agent.retro.templates_db import (
    DATA_DIR,
    INDEX_FILE,
    TEMPLATES_FILE,
    BitIndex,
    bulk_tanimoto,
    fingerprint_bits,
    load_template_library,
    pack_bits,
    popcount,
)

ACETYL_DONORS = {"CC(=O)Cl", "CC(=O)OC(C)=O", "CC(=O)O"}


def _canon(smiles: str) -> str:
    return Chem.MolToSmiles(Chem.MolFromSmiles(smiles))


@pytest.fixture(scope="module")
def model() -> TemplateKNNModel:
    return load_single_step_model()


def test_packaged_library_files_are_compact_and_complete():
    total = (DATA_DIR / TEMPLATES_FILE).stat().st_size + (DATA_DIR / INDEX_FILE).stat().st_size
    assert total < 25 * 1024 * 1024
    with gzip.open(DATA_DIR / TEMPLATES_FILE, "rt") as fh:
        data = json.load(fh)
    assert data["n_templates"] == len(data["templates"]) > 5000
    first = data["templates"][0]
    assert {"id", "retro_smarts", "count", "reaction_class", "class_counts"} <= set(first)
    assert ">>" in first["retro_smarts"] and first["count"] >= data["templates"][-1]["count"]
    assert data["n_reactions_excluded"] > 0  # multi-step benchmark products were left out


def test_library_loads_with_fingerprints_for_every_training_reaction():
    lib = load_template_library()
    assert lib.n_train > 30000
    assert lib.product_fps.shape[0] == lib.reactant_fps.shape[0] == lib.n_train
    assert int(lib.template_idx.max()) < len(lib.templates)
    assert all(t.id.startswith("USPTO50K_T") for t in lib.templates[:10])


def test_bit_index_gives_bulk_tanimoto_exactly():
    # a synthetic matrix with bits in most rows (stored as complements), rare bits, empty rows and an empty query
    rng = np.random.default_rng(0)
    dense = rng.random((301, 2048)) < np.linspace(0.0, 0.95, 2048)  # the library's fingerprint size
    dense[7] = False
    matrix = np.packbits(dense, axis=1, bitorder="little").view(np.uint64)
    counts = popcount(matrix)
    index = BitIndex.from_packed(matrix, chunk=64)
    assert index.complement.sum() > 100 and not index.complement.all()
    queries = [[], [0], list(range(2048)), [3, 3, 2000], *(np.flatnonzero(rng.random(2048) < f).tolist()
                                                         for f in (0.01, 0.1, 0.7))]
    for bits in queries:
        assert np.array_equal(index.tanimoto(bits, counts), bulk_tanimoto(pack_bits(bits), matrix, counts))


def test_packaged_library_neighbour_similarities_are_unchanged():
    lib = load_template_library()
    for smiles in ("CC(=O)Nc1ccc(O)cc1", "O=C(O)c1ccccc1OC(C)=O", "CN1CCN(Cc2ccc(C(=O)Nc3ccc(C)cc3)cc2)CC1"):
        bits = fingerprint_bits(smiles)
        assert np.array_equal(lib.product_index.tanimoto(bits, lib.product_counts),
                              bulk_tanimoto(pack_bits(bits), lib.product_fps, lib.product_counts))
    assert lib.product_index is lib.product_index  # built once
    from_file, from_matrix = lib.product_index, BitIndex.from_packed(lib.product_fps)
    assert np.array_equal(from_file.rows, from_matrix.rows) and np.array_equal(from_file.offsets, from_matrix.offsets)


def test_load_single_step_model_is_a_cached_singleton(model):
    assert load_single_step_model() is model
    assert isinstance(model, SingleStepModel)


def _rank_of(preds: list[Prediction], wanted_amine: str) -> int | None:
    for rank, p in enumerate(preds, 1):
        rs = set(p.reactants)
        if _canon(wanted_amine) in rs and rs & ACETYL_DONORS:
            return rank
    return None


def test_paracetamol_acetylation_of_4_aminophenol_in_top5(model, paracetamol):
    preds = model.predict(paracetamol, top_k=10)
    rank = _rank_of(preds, "Nc1ccc(O)cc1")
    assert rank is not None and rank <= 5, [p.reactants for p in preds]
    hit = preds[rank - 1]
    assert hit.category and hit.reaction_name
    assert hit.mapped_reaction.count(">>") == 1
    # the atom-mapped reaction is the same reaction as the prediction
    mapped_r, mapped_p = hit.mapped_reaction.split(">>")
    assert canonical_reactant_set(mapped_r) == tuple(hit.reactants)
    assert canonical_reactant_set(mapped_p) == (_canon(paracetamol),)


def test_aspirin_acetylation_of_salicylic_acid_in_top5(model, aspirin):
    preds = model.predict(aspirin, top_k=10)
    rank = _rank_of(preds, "O=C(O)c1ccccc1O")
    assert rank is not None and rank <= 5, [p.reactants for p in preds]


def test_predictions_are_unique_ranked_and_canonical(model):
    preds = model.predict("COc1ccc(CNC(=O)c2ccc(Br)cc2)cc1", top_k=50)
    assert 5 <= len(preds) <= 50
    sets = [tuple(p.reactants) for p in preds]
    assert len(set(sets)) == len(sets)
    scores = [p.score for p in preds]
    assert scores == sorted(scores, reverse=True) and all(0 < s <= 1 for s in scores)
    for p in preds:
        assert list(p.reactants) == sorted(p.reactants)
        assert all(_canon(r) == r for r in p.reactants)
        assert p.template_id and p.template_ids[0] == p.template_id
    with pytest.raises(FrozenInstanceError):
        preds[0].score = 2.0  # type: ignore[misc]
    assert json.loads(json.dumps(preds[0].to_dict()))["reactants"] == preds[0].reactants


def test_top_k_limits_and_atom_maps_in_input_are_ignored(model, paracetamol):
    assert len(model.predict(paracetamol, top_k=3)) <= 3
    assert model.predict(paracetamol, top_k=0) == []
    mapped = "[CH3:1][C:2](=[O:3])[NH:4][c:5]1[cH:6][cH:7][c:8]([OH:9])[cH:10][cH:11]1"
    assert [p.reactants for p in model.predict(mapped, top_k=5)] == [
        p.reactants for p in model.predict(paracetamol, top_k=5)
    ]


@pytest.mark.parametrize("bad", ["", "   ", "C1CC", "not_a_smiles", "c1ccccc"])
def test_invalid_smiles_raises_chemistry_error(model, bad):
    with pytest.raises(ChemistryError) as err:
        model.predict(bad)
    assert err.value.code == "invalid_smiles"
    assert err.value.value == bad


def test_ellman_sulfinyl_imine_comes_from_tert_butanesulfinamide_of_the_same_configuration(model):
    # rdchiral left a three-coordinate S(=O) unspecified: the precursor was racemic tert-butanesulfinamide
    for product, amide in (("CC(C)(C)[S@@](=O)/N=C(/CF)c1cc(Br)cnc1F", "CC(C)(C)[S@](N)=O"),
                           ("CC(C)(C)[S@](=O)/N=C(/CF)c1cc(Br)cnc1F", "CC(C)(C)[S@@](N)=O")):
        sets = [p.reactants for p in model.predict(product, top_k=10)]
        assert sorted([amide, "O=C(CF)c1cc(Br)cnc1F"]) in sets
        assert not any("CC(C)(C)S(N)=O" in s for s in sets)


def test_a_toy_model_satisfies_the_protocol():
    class OneAnswer:
        def predict(self, product_smiles: str, top_k: int = 50) -> list[Prediction]:
            return [Prediction(["CC(=O)Cl", "Nc1ccc(O)cc1"], 1.0, "toy", "N-acetylation", "acylation", "")][:top_k]

    class NotAModel:
        def run(self, smiles: str) -> list:
            return []

    assert isinstance(OneAnswer(), SingleStepModel)
    assert not isinstance(NotAModel(), SingleStepModel)
    assert OneAnswer().predict("CC(=O)Nc1ccc(O)cc1")[0].reaction_smiles == "CC(=O)Cl.Nc1ccc(O)cc1>>"


def test_named_expert_templates_join_the_candidates(model):
    """Precursor sets that only a named expert template gives are proposed too (merged model)."""
    # a Cbz-protected piperidinemethanol: the expert reduction, deprotection and protection templates apply (a TBS ether
    # was the example until the PaRoutes templates learned its one expert disconnection as well)
    product = "O=C(OCc1ccccc1)N1CCC(CO)CC1"
    merged = model.predict(product, top_k=200)
    knn_only = TemplateKNNModel(model.library, merge_named=False, policy=model.policy,
                                general_policy=model.general_policy).predict(product, top_k=200)
    merged_sets = {tuple(p.reactants) for p in merged}
    knn_sets = {tuple(p.reactants) for p in knn_only}
    assert knn_sets <= merged_sets
    extra = [p for p in merged if tuple(p.reactants) not in knn_sets]
    assert extra, "the named templates proposed nothing new"
    for p in extra:
        assert p.source == "named_template"
        assert p.named_template_id and p.template_id == p.named_template_id
        assert p.reaction_name and p.category and p.evidence["n_supporting_neighbours"] == 0
        mapped_r, mapped_p = p.mapped_reaction.split(">>")
        assert canonical_reactant_set(mapped_r) == tuple(p.reactants)
        assert canonical_reactant_set(mapped_p) == (_canon(product),)
    assert abs(sum(p.score for p in merged) - 1.0) < 0.01  # one softmax over every candidate


def test_named_template_classes_are_packaged_and_used_for_named_only_candidates():
    from molx_agent.retro.named_templates import NAMED_CLASSES_FILE, NamedTemplateMatcher

    data = json.loads((DATA_DIR / NAMED_CLASSES_FILE).read_text())
    assert len(data["classes"]) >= 100 and set(data["classes"].values()) <= set(range(1, 11))
    matcher = NamedTemplateMatcher.load()
    assert matcher.reaction_class("G02_amide_retro") == 2  # amide coupling: acylation
    assert matcher.reaction_class("G31_suzuki_retro") == 3  # C-C bond formation
    assert NamedTemplateMatcher.load(classes=False).reaction_class("G02_amide_retro") is None
    model = load_single_step_model()
    product, _mapped, cands, _feats = model.candidates("Cc1ccc(-c2ccccc2)cc1")
    table = model._named.precursor_table(product)
    named_only = [c for c in cands if c.named_only]
    assert named_only
    for cand in named_only:
        assert cand.named_class == matcher.reaction_class(table[cand.reactants][0].id)


@pytest.mark.parametrize(
    ("product", "precursors", "template_id"),
    [
        # reactions the 38k-reaction USPTO-50K template library lacks; expert templates propose them
        ("Clc1ncnc2ccccc12", ["O=P(Cl)(Cl)Cl", "O=c1[nH]cnc2ccccc12"], "G138_deoxychlorination_pocl3_retro"),
        ("c1ccc(-n2cccc2)cc1", ["COC1CCC(OC)O1", "Nc1ccccc1"], "G148_clauson_kaas_pyrrole_retro"),
        ("c1ccc(CCN2CCOCC2)cc1", ["C1COCCN1", "Cc1ccc(S(=O)(=O)OCCc2ccccc2)cc1"], "G131_n_alkylation_tosylate_retro"),
    ],
)
def test_expert_templates_fill_gaps_of_the_learned_library(model, product, precursors, template_id):
    preds = model.predict(product, top_k=50)
    hit = next((p for p in preds if p.reactants == sorted(_canon(s) for s in precursors)), None)
    assert hit is not None, [p.reactants for p in preds]
    assert hit.named_template_id == template_id


def test_candidate_descriptors_from_cached_precursors_equal_those_of_the_whole_set(model):
    """Per-molecule fingerprints, heavy atoms and rings (cached) combine to those of the whole precursor set."""
    from molx_agent.retro.templates_db import fingerprint_bits_of_mol, pack_bits

    product = "CC(=O)N1CCC(Oc2ccc(-c3ccc(F)cc3)nc2)CC1"
    _canon_product, _mapped, cands, _feats = model.candidates(product)
    multi = [c for c in cands if len(c.reactants) >= 2]
    assert len(multi) >= 5
    for cand in cands:
        whole = Chem.MolFromSmiles(".".join(cand.reactants))
        frags = Chem.GetMolFrags(whole, asMols=True, sanitizeFrags=False)
        assert cand.reactant_heavy_atoms == tuple(m.GetNumHeavyAtoms() for m in frags)
        assert cand.reactant_rings == whole.GetRingInfo().NumRings()
        parts = [model._precursor_info(smi) for smi in cand.reactants]
        union = parts[0][0]
        for part in parts[1:]:
            union = union | part[0]
        assert (union == pack_bits(fingerprint_bits_of_mol(whole))).all()
    assert model._precursor_info("not a smiles") is None


def test_precursor_cache_is_bounded():
    small = TemplateKNNModel(load_template_library(), named_templates=False)
    small.precursor_cache_size = 3
    for smi in ("CCO", "CCN", "CCC", "CCCl", "CCBr"):
        assert small._precursor_info(smi) is not None
    assert list(small._precursor_cache) == ["CCC", "CCCl", "CCBr"]  # oldest dropped first


def test_named_precursor_table_is_the_same_with_the_callers_rdchiral_target(model):
    from rdchiral.initialization import rdchiralReactants

    from molx_agent.retro.named_templates import NamedTemplateMatcher

    product = "Cc1ccc(-c2ccc(OCc3ccccc3)cc2)cc1"
    fresh = NamedTemplateMatcher.load().precursor_table(product)
    shared = NamedTemplateMatcher.load().precursor_table(product, rdchiralReactants(product))
    assert fresh and shared == fresh


def test_packed_fingerprint_words_equal_the_packed_bit_list():
    import numpy as np
    from rdkit import Chem

    from molx_agent.retro.templates_db import fingerprint_bits_of_mol, fingerprint_words_of_mol, pack_bits

    for smiles in ("CCO", "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1", "[Na+].[Cl-]", "C"):
        mol = Chem.MolFromSmiles(smiles)
        words = fingerprint_words_of_mol(mol)
        assert words.dtype == np.uint64 and words.shape == (32,)
        assert np.array_equal(words, pack_bits(fingerprint_bits_of_mol(mol)))


# trans-4-(N-methylacetamido)cyclohexanol atom-mapped: read with maps and written without, RDKit gives its ring
# cis/trans in a non-canonical form (``[C@@H]...[C@@H]``; the same molecule as ``[C@H]...[C@H]``)
MAPPED_TRANS_AMIDE = "[CH3:1][C:2](=[O:3])[N:4]([CH3:5])[C@H:6]1[CH2:7][CH2:8][C@H:9]([OH:10])[CH2:11][CH2:12]1"


def test_mapped_input_gives_the_canonical_smiles_of_the_unmapped_molecule(model):
    plain = "CC(=O)N(C)[C@H]1CC[C@H](O)CC1"
    assert canonical_reactant_set(MAPPED_TRANS_AMIDE) == (plain,) == (_canon(plain),)
    assert canonical_reactant_set("CC(=O)N(C)[C@@H]1CC[C@@H](O)CC1") == (plain,)  # a truth written the other way
    mapped_preds = model.predict(MAPPED_TRANS_AMIDE, top_k=5)
    plain_preds = model.predict(plain, top_k=5)
    assert [p.reactants for p in mapped_preds] == [p.reactants for p in plain_preds]
    assert mapped_preds[0].product == plain
    for p in mapped_preds:  # every precursor SMILES is canonical (a fixed point of read and write)
        assert all(_canon(s) == s for s in p.reactants)


def test_parse_product_keeps_the_molecule_when_its_map_free_smiles_does_not_read_back(monkeypatch):
    import molx_agent.chem.utils as chem_utils
    import molx_agent.retro.single_step as single_step

    read = chem_utils.Chem.MolFromSmiles
    # as if RDKit could not read back the map-free SMILES it wrote (the mapped input itself still reads)
    monkeypatch.setattr(chem_utils.Chem, "MolFromSmiles", lambda text, *a, **k: read(text, *a, **k) if ":" in text
                        else None)
    mol = single_step.parse_product("[CH3:1][C:2](=[O:3])[NH:4][CH3:5]")
    assert mol.GetNumAtoms() == 5 and not any(a.GetAtomMapNum() for a in mol.GetAtoms())
    assert Chem.MolToSmiles(mol) == "CNC(C)=O"
