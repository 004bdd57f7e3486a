"""RDKit tool adapters: molecular properties, canonicalisation/conversion, names, functional groups.

Each tool parses its arguments (pydantic ``args_schema``), calls one library function and returns a
JSON string.  Bad input comes back as ``{"error": {...}}`` (the ``RetroError`` dict) so an LLM can
read the reason and retry.
"""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool
from pydantic import BaseModel, Field

from molx_agent.errors import ChemistryError, RetroError
from molx_agent.io_utils import dumps


class SmilesInput(BaseModel):
    smiles: str = Field(description="SMILES of the molecule, e.g. CC(=O)Oc1ccccc1C(=O)O")


class NameInput(BaseModel):
    name: str = Field(description="Drug or reagent name in English or Chinese, e.g. aspirin or 阿司匹林")


class ConvertInput(BaseModel):
    smiles: str = Field(description="SMILES of the molecule")
    to: str = Field(default="inchikey", description="Target format: canonical_smiles, inchi, inchikey, molblock, formula")


def _safe(fn: Any, *args: Any) -> str:
    try:
        return dumps(fn(*args))
    except RetroError as exc:
        return dumps({"error": exc.to_dict()})


class MolecularPropertiesTool(BaseTool):
    name: str = "molecular_properties"
    description: str = ("Compute RDKit properties of a molecule from its SMILES: formula, molecular weight, exact "
                        "mass, cLogP, TPSA, HBD/HBA, rotatable bonds, rings, QED, SA score, Lipinski.")
    args_schema: type[BaseModel] = SmilesInput

    def _run(self, smiles: str) -> str:
        from molx_agent.chem.properties import compute_properties

        return _safe(compute_properties, smiles)


class CanonicalizeSmilesTool(BaseTool):
    name: str = "canonicalize_smiles"
    description: str = "Return the RDKit canonical (isomeric) SMILES of a molecule."
    args_schema: type[BaseModel] = SmilesInput

    def _run(self, smiles: str) -> str:
        return _safe(lambda s: {"smiles": s, "canonical_smiles": convert_molecule(s, "canonical_smiles")}, smiles)


class ConvertMoleculeTool(BaseTool):
    name: str = "convert_molecule"
    description: str = "Convert a SMILES to canonical_smiles, inchi, inchikey, molblock or formula."
    args_schema: type[BaseModel] = ConvertInput

    def _run(self, smiles: str, to: str = "inchikey") -> str:
        return _safe(lambda s, t: {"smiles": s, "format": t, "value": convert_molecule(s, t)}, smiles, to)


class NameToSmilesTool(BaseTool):
    name: str = "name_to_smiles"
    description: str = ("Look up the SMILES of a common drug or reagent by name (English, synonym or Chinese) "
                        "in molx-agent's offline table.")
    args_schema: type[BaseModel] = NameInput

    def _run(self, name: str) -> str:
        from molx_agent.chem.names import lookup_name

        entry = lookup_name(name)
        if entry is None:
            return dumps({"error": {"code": "unknown_name", "message": f"{name!r} is not in the offline name table",
                                    "value": name}})
        return dumps({"name": entry.name, "smiles": entry.smiles, "formula": entry.formula, "kind": entry.kind})


class FunctionalGroupsTool(BaseTool):
    name: str = "functional_groups"
    description: str = "List the functional groups of a molecule (name, count, matched atom indices)."
    args_schema: type[BaseModel] = SmilesInput

    def _run(self, smiles: str) -> str:
        from molx_agent.chem.fg_detect import detect_functional_groups

        return _safe(lambda s: {"smiles": s, "functional_groups": detect_functional_groups(s)}, smiles)


def convert_molecule(smiles: str, to: str) -> str:
    """Convert one SMILES; raises ChemistryError on bad SMILES or an unknown format."""
    from rdkit import Chem
    from rdkit.Chem import rdMolDescriptors

    from molx_agent.chem.properties import _to_mol

    mol = _to_mol(smiles)
    converters = {
        "canonical_smiles": Chem.MolToSmiles,
        "inchi": Chem.MolToInchi,
        "inchikey": Chem.MolToInchiKey,
        "molblock": Chem.MolToMolBlock,
        "formula": rdMolDescriptors.CalcMolFormula,
    }
    key = to.strip().lower()
    if key not in converters:
        raise ChemistryError("unknown_format", f"unknown format {to!r}", value=to, hint=", ".join(converters))
    return converters[key](mol)


def register_tools(registry: Any) -> None:
    """Loader for the ``rdkit`` category (see ``DEFAULT_LOADERS``)."""
    from molx_agent.agents.modules.tools import ToolCategory

    registry.register(MolecularPropertiesTool(), ToolCategory.RDKIT)
    registry.register(FunctionalGroupsTool(), ToolCategory.RDKIT)
    # single-molecule converters serve the tool agent only (seed 002); the pipeline workers call the library
    converters = ["tool_agent"]
    registry.register(CanonicalizeSmilesTool(), ToolCategory.CONVERTER, allowed_agents=converters)
    registry.register(ConvertMoleculeTool(), ToolCategory.CONVERTER, allowed_agents=converters)
    registry.register(NameToSmilesTool(), ToolCategory.CONVERTER, allowed_agents=converters)


__all__ = [
    "MolecularPropertiesTool",
    "CanonicalizeSmilesTool",
    "ConvertMoleculeTool",
    "NameToSmilesTool",
    "FunctionalGroupsTool",
    "convert_molecule",
    "register_tools",
]
