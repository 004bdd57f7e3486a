"""Hand-built routes for report tests (test data written by a chemist, not engine output)."""

from __future__ import annotations

from molx_agent.retro.route import LLMDecision, RetroGraph, TemplateEvidence

TRITYL_TETRAZOLE = "c1ccc(C(c2ccccc2)(c2ccccc2)n2nnc(-c3ccccc3-c3ccc(C)cc3)n2)cc1"


def _stock(graph: RetroGraph, node_id: str, source: str) -> None:
    node = graph.molecule_nodes[node_id]
    node.role = "terminal"
    node.availability = {"available": True, "source": source}


def paracetamol_route() -> RetroGraph:
    """Paracetamol in two steps: nitro reduction of 4-nitrophenol, then N-acetylation with Ac2O."""
    g = RetroGraph.new("CC(=O)Nc1ccc(O)cc1", "Paracetamol")
    g.add_reaction(
        "mol_0", ["CC(=O)OC(C)=O", "Nc1ccc(O)cc1"], reaction_type="N-acetylation",
        template_evidence=TemplateEvidence("G08_anhydride_acetylation_retro", "Anhydride acetylation",
                                           "acylation", 0.85, "template"),
        llm_decision=LLMDecision("Ac2O acetylates the aniline selectively over the phenol", "high",
                                 [{"method": "AcCl", "reason": "HCl by-product, O-acylation"}]),
        forward_validation={"ok": True, "pass": True, "feasibility_score": 0.82, "hard_fail_reasons": None,
                            "steps": {"atom_balance": {"score": 0.85, "note": "loss: AcOH"},
                                      "template_forward": {"score": 1.0}}},
        score=0.71)
    _stock(g, "mol_1", "zinc-instock-mini")
    g.add_reaction(
        "mol_2", ["O=[N+]([O-])c1ccc(O)cc1"], reaction_type="Nitro reduction",
        template_evidence=TemplateEvidence("G70_nitro_reduction_retro", "Nitro reduction", "reduction", 0.8,
                                           "template"),
        forward_validation={"ok": True, "pass": True, "feasibility_score": 0.66, "hard_fail_reasons": None})
    _stock(g, "mol_3", "common-reagents")
    return g


def losartan_route() -> RetroGraph:
    """Losartan in five steps (trityl protection, NBS bromination, N-alkylation, NaBH4, detritylation)."""
    g = RetroGraph.new("CCCCc1nc(Cl)c(CO)n1Cc1ccc(-c2ccccc2-c2nn[nH]n2)cc1", "Losartan")
    fv = {"ok": True, "pass": True, "feasibility_score": 0.74, "hard_fail_reasons": None}
    trityl_losartan = "CCCCc1nc(Cl)c(CO)n1Cc1ccc(-c2ccccc2-c2nnn(C(c3ccccc3)(c3ccccc3)c3ccccc3)n2)cc1"
    aldehyde = "CCCCc1nc(Cl)c(C=O)n1Cc1ccc(-c2ccccc2-c2nnn(C(c3ccccc3)(c3ccccc3)c3ccccc3)n2)cc1"
    bromide = "BrCc1ccc(-c2ccccc2-c2nnn(C(c3ccccc3)(c3ccccc3)c3ccccc3)n2)cc1"
    r = g.add_reaction("mol_0", [trityl_losartan], reaction_type="Trityl deprotection",
                       template_evidence=TemplateEvidence("", "Trityl deprotection", "deprotection", 0.8, "template"),
                       forward_validation=fv)
    r = g.add_reaction(r.reactant_nodes[0], [aldehyde], reaction_type="NaBH4 aldehyde reduction",
                       template_evidence=TemplateEvidence("G62_nabh4_aldehyde_reduction_retro", "NaBH4 reduction",
                                                          "reduction", 0.9, "template"), forward_validation=fv)
    r = g.add_reaction(r.reactant_nodes[0], [bromide, "CCCCc1nc(Cl)c(C=O)[nH]1"], reaction_type="Imidazole N-alkylation",
                       template_evidence=TemplateEvidence("G17_azole_n_alkylation_retro", "Azole N-alkylation",
                                                          "alkylation", 0.8, "template"), forward_validation=fv)
    _stock(g, r.reactant_nodes[1], "zinc-instock-mini")
    r = g.add_reaction(r.reactant_nodes[0], [TRITYL_TETRAZOLE], reaction_type="Wohl-Ziegler bromination",
                       template_evidence=TemplateEvidence("", "Benzylic bromination", "halogenation", 0.6,
                                                          "llm_proposed"), forward_validation=fv)
    g.add_reaction(r.reactant_nodes[0], ["Cc1ccc(-c2ccccc2-c2nn[nH]n2)cc1", "ClC(c1ccccc1)(c1ccccc1)c1ccccc1"],
                   reaction_type="Trityl protection",
                   template_evidence=TemplateEvidence("", "Trityl protection", "protection", 0.8, "template"),
                   forward_validation=fv)
    for node in g.leaves():
        if node.role == "pending":
            _stock(g, node.node_id, "zinc-instock-mini")
    return g
