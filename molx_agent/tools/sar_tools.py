"""SAR tool adapters (seed 002): extraction, cleaning, scaffolds/MCS, R-groups, matched pairs, properties,
activity cliffs and the whole pipeline.  Each parses its arguments, calls one ``molx_agent.sar`` function
and returns JSON; bad input comes back as ``{"error": {...}}`` (the ``RetroError`` dict).
"""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool
from pydantic import BaseModel, Field

from molx_agent.errors import RetroError
from molx_agent.io_utils import dumps

PREVIEW_ROWS = 5
MAX_LISTED = 50


def _safe(fn: Any, *args: Any, **kwargs: Any) -> str:
    try:
        return dumps(fn(*args, **kwargs))
    except RetroError as exc:
        return dumps({"error": exc.to_dict()})


class FileInput(BaseModel):
    file_path: str = Field(description="Path of the data file")
    sheet: str | None = Field(default=None, description="Excel sheet name (required when the workbook has several)")


class CleanInput(FileInput):
    smiles_col: str | None = Field(default=None, description="SMILES column (default: detected)")
    activity_col: str | None = Field(default=None, description="Activity column (default: detected)")
    id_col: str | None = Field(default=None, description="Compound ID column (default: detected)")
    units: str | None = Field(default=None, description="nM, uM, mM, M, pM or log (p-values)")


class SaveInput(CleanInput):
    output_dir: str | None = Field(default=None, description="Folder (default: a new timestamped folder)")


class CompoundIn(BaseModel):
    id: str = Field(description="Compound ID")
    smiles: str = Field(description="SMILES")
    p_activity: float | None = Field(default=None, description="pActivity (-log10 molar), e.g. pIC50")


class CompoundsInput(BaseModel):
    compounds: list[CompoundIn] = Field(description="Compounds: id, smiles, p_activity")


class CoreInput(CompoundsInput):
    core: str | None = Field(default=None, description="Core SMILES/SMARTS (default: MCS or Murcko scaffold)")


class SmilesListInput(BaseModel):
    smiles: list[str] = Field(description="SMILES of the compounds")


class PipelineInput(CleanInput):
    core: str | None = Field(default=None, description="Core SMILES/SMARTS (default: chosen per series)")
    mode: str = Field(default="full", description="Report mode: full, site:R1 or subset:ID1,ID2")
    output_dir: str | None = Field(default=None, description="Output folder (default: timestamped)")
    language: str = Field(default="en", description="en or zh")


def _mols(smiles: list[str]) -> list[Any]:
    from molx_agent.chem.utils import parse_mol

    return [parse_mol(s) for s in smiles]


def _extract(file_path: str, sheet: str | None, llm: Any) -> dict[str, Any]:
    from molx_agent.sar.columns import detect_columns
    from molx_agent.sar.io import read_table

    table = read_table(file_path, sheet=sheet)
    mapping = detect_columns(table.df, llm=llm, require_activity=False)
    return {"file": table.source, "format": table.format, "sheet": table.sheet, "n_rows": table.n_rows,
            "columns": table.columns, "mapping": mapping.to_dict(),
            "preview": table.df.head(PREVIEW_ROWS).to_dict(orient="records")}


class _ExtractBase(BaseTool):
    args_schema: type[BaseModel] = FileInput
    llm: Any = None

    def _run(self, file_path: str, sheet: str | None = None) -> str:
        return _safe(_extract, file_path, sheet, self.llm)


class ExtractFromCSVTool(_ExtractBase):
    name: str = "extract_from_csv"
    description: str = ("Read a CSV/TSV of compounds and identify its SMILES, activity, ID and units columns "
                        "(LLM when available, header keywords otherwise). Returns columns, mapping and a preview.")


class ExtractFromExcelTool(_ExtractBase):
    name: str = "extract_from_excel"
    description: str = ("Read one sheet of an Excel .xlsx of compounds and identify its columns; a workbook with "
                        "several sheets needs `sheet`.")


class ExtractFromSDFTool(_ExtractBase):
    name: str = "extract_from_sdf"
    description: str = "Read an SDF (structures as SMILES, SD properties as columns) and identify its columns."


def _clean(save: bool, file_path: str, sheet: str | None, output_dir: str | None = None, llm: Any = None,
           **cols: Any) -> dict[str, Any]:
    from molx_agent.sar.clean import clean_table, save_cleaned
    from molx_agent.sar.io import read_table
    from molx_agent.tools import get_tool_output_dir

    result = clean_table(read_table(file_path, sheet=sheet), llm=llm, **cols)
    if save:
        out = output_dir or get_tool_output_dir("cleaned")
        save_cleaned(result, out)
    doc = result.to_dict()
    doc["errors"] = [e.to_dict() for e in result.errors[:MAX_LISTED]]
    return doc


class CleanCompoundDataTool(BaseTool):
    name: str = "clean_compound_data"
    description: str = ("Clean a compound file: ChEMBL standardisation, potencies to pActivity, replicates merged by "
                        "InChIKey, rejected rows with reasons. Returns the counts (n_input = n_clean + "
                        "n_duplicates_merged + n_errors); writes nothing.")
    args_schema: type[BaseModel] = CleanInput
    llm: Any = None

    def _run(self, file_path: str, sheet: str | None = None, smiles_col: str | None = None,
             activity_col: str | None = None, id_col: str | None = None, units: str | None = None) -> str:
        return _safe(_clean, False, file_path, sheet, llm=self.llm, smiles_col=smiles_col,
                     activity_col=activity_col, id_col=id_col, units=units)


class SaveCleanedDataTool(BaseTool):
    name: str = "save_cleaned_data"
    description: str = ("Clean a compound file and save cleaned.csv, errors.csv and clean_summary.json in a "
                        "timestamped folder; returns the paths and counts.")
    args_schema: type[BaseModel] = SaveInput
    llm: Any = None

    def _run(self, file_path: str, sheet: str | None = None, smiles_col: str | None = None,
             activity_col: str | None = None, id_col: str | None = None, units: str | None = None,
             output_dir: str | None = None) -> str:
        return _safe(_clean, True, file_path, sheet, output_dir, llm=self.llm, smiles_col=smiles_col,
                     activity_col=activity_col, id_col=id_col, units=units)


class ExtractScaffoldTool(BaseTool):
    name: str = "extract_scaffold"
    description: str = "Bemis-Murcko scaffolds of compounds, most common first, with counts."
    args_schema: type[BaseModel] = SmilesListInput

    def _run(self, smiles: list[str]) -> str:
        from collections import Counter

        from molx_agent.sar.series import murcko_smiles

        return _safe(lambda s: {"scaffolds": [{"scaffold": k, "count": v} for k, v in
                                              Counter(murcko_smiles(m) for m in _mols(s)).most_common()]}, smiles)


class FindMCSTool(BaseTool):
    name: str = "find_mcs"
    description: str = ("Choose a meaningful core for a series: RDKit MCS (timeout) or the most common Murcko "
                        "scaffold; trivial cores (a lone ring, a few atoms) are rejected with the reason.")
    args_schema: type[BaseModel] = SmilesListInput

    def _run(self, smiles: list[str]) -> str:
        from molx_agent.sar.series import choose_core

        def go(s: list[str]) -> dict[str, Any]:
            core = choose_core(_mols(s))
            return {k: v for k, v in core.items() if k != "query"}

        return _safe(go, smiles)


def _compound_arrays(compounds: list[CompoundIn]) -> tuple[list[str], list[str], list[Any], list[bool]]:
    cs = [c if isinstance(c, CompoundIn) else CompoundIn.model_validate(c) for c in compounds]
    ids = [c.id for c in cs]
    smiles = [c.smiles for c in cs]
    p = [c.p_activity for c in cs]
    return ids, smiles, p, [x is not None for x in p]


class RGroupDecompositionTool(BaseTool):
    name: str = "rgroup_decomposition"
    description: str = ("R-group decomposition of a series on a core (given, or chosen by MCS/Murcko): the R-group "
                        "table, per-position statistics and single-point scans.")
    args_schema: type[BaseModel] = CoreInput

    def _run(self, compounds: list[CompoundIn], core: str | None = None) -> str:
        from molx_agent.sar.rgroup import decompose_series, detect_single_point_scans
        from molx_agent.sar.series import choose_core

        def go() -> dict[str, Any]:
            ids, smiles, p, exact = _compound_arrays(compounds)
            mols = _mols(smiles)
            chosen = choose_core(mols, user_core=core)
            if chosen["query"] is None:
                return {"core": None, "rejected_cores": chosen["rejected"], "summary": "no meaningful common core"}
            table = decompose_series("S1", chosen["query"], mols, list(range(len(mols))), ids,
                                     [x if x is not None else float("nan") for x in p], exact)
            return {"core": chosen["smiles"], "core_source": chosen["source"], **table.to_dict(max_rows=MAX_LISTED),
                    "single_point_scans": detect_single_point_scans(table)[:MAX_LISTED]}

        return _safe(go)


class AnalyzeMMPTool(BaseTool):
    name: str = "analyze_mmp"
    description: str = ("Matched molecular pairs with mmpdb: transformations with count, mean and SD of "
                        "ΔpActivity, and the pairs found in the data.")
    args_schema: type[BaseModel] = CompoundsInput

    def _run(self, compounds: list[CompoundIn]) -> str:
        from molx_agent.sar.mmp import find_matched_pairs

        def go() -> dict[str, Any]:
            ids, smiles, p, exact = _compound_arrays(compounds)
            return find_matched_pairs(smiles, p, ids=ids, exact=exact).to_dict(limit=MAX_LISTED)

        return _safe(go)


class CalculatePropertiesTool(BaseTool):
    name: str = "calculate_sar_properties"
    description: str = "MW, cLogP, TPSA, HBD, HBA, heavy atoms, ligand efficiency (LE) and LLE of compounds."
    args_schema: type[BaseModel] = CompoundsInput

    def _run(self, compounds: list[CompoundIn]) -> str:
        from molx_agent.sar.properties import compute_sar_properties

        def go() -> dict[str, Any]:
            ids, smiles, p, _ = _compound_arrays(compounds)
            df = compute_sar_properties(_mols(smiles), p)
            df.insert(0, "id", ids)
            return {"properties": df.to_dict(orient="records")}

        return _safe(go)


class IdentifyActivityCliffsTool(BaseTool):
    name: str = "identify_activity_cliffs"
    description: str = ("Activity cliffs with MoleculeACE's definition (Tanimoto ECFP4, generic-framework Tanimoto "
                        "or SMILES Levenshtein >= 0.9 and > 10-fold potency), listed as pairs with SALI.")
    args_schema: type[BaseModel] = CompoundsInput

    def _run(self, compounds: list[CompoundIn]) -> str:
        from molx_agent.sar.cliffs import find_activity_cliffs

        def go() -> dict[str, Any]:
            ids, smiles, p, exact = _compound_arrays(compounds)
            res = find_activity_cliffs(_mols(smiles), smiles, [x if x is not None else float("nan") for x in p],
                                       ids=ids, exact=exact)
            return res.to_dict(limit=MAX_LISTED)

        return _safe(go)


def validate_sar_data(compounds: list[CompoundIn], min_compounds: int = 8, min_potency_range: float = 1.0) -> dict:
    """Is this set fit for a SAR analysis?  Parsable structures, exact potencies, enough compounds, a potency spread
    beyond assay noise, a common scaffold; each problem is an issue ``{code, message}``."""
    from collections import Counter

    from molx_agent.chem.utils import parse_mol
    from molx_agent.errors import ChemistryError
    from molx_agent.sar.series import murcko_smiles

    ids, smiles, p, exact = _compound_arrays(compounds)
    issues: list[dict[str, Any]] = []
    bad, mols = [], []
    for cid, smi in zip(ids, smiles, strict=True):
        try:
            mols.append(parse_mol(smi))
        except ChemistryError as exc:
            bad.append({"id": cid, "smiles": smi, "reason": exc.message})
    if bad:
        issues.append({"code": "invalid_smiles", "message": f"{len(bad)} structure(s) do not parse", "records": bad})
    dupes = [k for k, v in Counter(ids).items() if v > 1]
    if dupes:
        issues.append({"code": "duplicate_ids", "message": f"duplicate IDs: {', '.join(dupes[:10])}"})
    values = [x for x in p if x is not None]
    if len(values) < min_compounds:
        issues.append({"code": "too_few_compounds",
                       "message": f"{len(values)} compounds with potencies (< {min_compounds})"})
    if len(values) >= 2 and max(values) - min(values) < min_potency_range:
        issues.append({"code": "no_potency_spread",
                       "message": f"potencies span {max(values) - min(values):.2f} log units (< {min_potency_range:g})"})
    scaffolds = Counter(murcko_smiles(m) for m in mols)
    top, n_top = (scaffolds.most_common(1) or [("", 0)])[0]
    if mols and n_top / len(mols) < 0.3:
        issues.append({"code": "no_common_scaffold",
                       "message": f"the most common scaffold covers only {n_top} of {len(mols)} compounds"})
    return {"valid": not issues, "n_compounds": len(ids), "n_with_potency": len(values),
            "potency_range": round(max(values) - min(values), 3) if values else None,
            "most_common_scaffold": top or None, "issues": issues}


class ValidateSARInput(CompoundsInput):
    min_compounds: int = Field(default=8, description="Fewest compounds with potencies for a meaningful SAR")
    min_potency_range: float = Field(default=1.0, description="Smallest potency spread (log units) worth analysing")


class ValidateSARDataTool(BaseTool):
    name: str = "validate_sar_data"
    description: str = ("Check that compounds are fit for SAR: structures parse, IDs unique, enough potencies, a "
                        "potency spread beyond assay noise, a common scaffold. Returns valid and the issues.")
    args_schema: type[BaseModel] = ValidateSARInput

    def _run(self, compounds: list[CompoundIn], min_compounds: int = 8, min_potency_range: float = 1.0) -> str:
        return _safe(validate_sar_data, compounds, min_compounds, min_potency_range)


ValidateSARData = ValidateSARDataTool  # the seed's name


class RunSARAnalysisTool(BaseTool):
    name: str = "run_full_sar_analysis"
    description: str = ("Whole SAR analysis of a data file (cleaning, series and cores, R-groups, OCAT, matched "
                        "pairs, cliffs, properties) with a self-contained HTML report; returns the JSON summary.")
    args_schema: type[BaseModel] = PipelineInput
    llm: Any = None

    def _run(self, file_path: str, sheet: str | None = None, smiles_col: str | None = None,
             activity_col: str | None = None, id_col: str | None = None, units: str | None = None,
             core: str | None = None, mode: str = "full", output_dir: str | None = None, language: str = "en") -> str:
        from molx_agent.sar.pipeline import run_sar_pipeline
        from molx_agent.tools import get_tool_output_dir

        return _safe(lambda: run_sar_pipeline(
            file_path, sheet=sheet, smiles_col=smiles_col, activity_col=activity_col, id_col=id_col, units=units,
            core=core, mode=mode, output_dir=output_dir or get_tool_output_dir("sar_analysis"), language=language,
            llm=self.llm,
        ).to_dict(max_items=MAX_LISTED))


def register_tools(registry: Any) -> None:
    """Loader for the ``sar`` category (see ``DEFAULT_LOADERS``); access per seed 002."""
    from molx_agent.agents.modules.tools import ToolCategory

    cleaner = ["data_cleaner"]
    analysts = ["sar", "reporter", "tool_agent"]
    registry.register(ExtractFromCSVTool(), ToolCategory.EXTRACTOR, allowed_agents=cleaner, requires_llm=True)
    registry.register(ExtractFromExcelTool(), ToolCategory.EXTRACTOR, allowed_agents=cleaner, requires_llm=True)
    registry.register(ExtractFromSDFTool(), ToolCategory.EXTRACTOR, allowed_agents=cleaner, requires_llm=True)
    registry.register(CleanCompoundDataTool(), ToolCategory.STANDARDIZE, allowed_agents=cleaner, requires_llm=True)
    registry.register(SaveCleanedDataTool(), ToolCategory.STANDARDIZE, allowed_agents=cleaner, requires_llm=True)
    for tool in (ExtractScaffoldTool(), FindMCSTool(), RGroupDecompositionTool(), AnalyzeMMPTool(),
                 CalculatePropertiesTool(), IdentifyActivityCliffsTool(), ValidateSARDataTool()):
        registry.register(tool, ToolCategory.SAR, allowed_agents=analysts)
    registry.register(RunSARAnalysisTool(), ToolCategory.REPORT, allowed_agents=["reporter", "tool_agent"],
                      requires_llm=True)


__all__ = [
    "ExtractFromCSVTool", "ExtractFromExcelTool", "ExtractFromSDFTool", "CleanCompoundDataTool",
    "SaveCleanedDataTool", "ExtractScaffoldTool", "FindMCSTool", "RGroupDecompositionTool", "AnalyzeMMPTool",
    "CalculatePropertiesTool", "IdentifyActivityCliffsTool", "RunSARAnalysisTool", "ValidateSARDataTool",
    "ValidateSARData", "validate_sar_data", "register_tools",
]
