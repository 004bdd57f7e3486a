"""``data_cleaner`` worker (seed 002, DataCleanerAgent): read a CSV/TSV/Excel/SDF file, identify its columns
(the injected LLM when there is one, header keywords otherwise), standardise and clean it, and save
``cleaned.csv``, ``errors.csv`` and ``clean_summary.json`` in a timestamped output folder.

Inputs: ``inputs["files"]`` (else ``state["input_files"]``); ``inputs["options"]`` may set ``smiles_col``,
``activity_col``, ``id_col``, ``units``, ``sheet``, ``output_dir``.  Result keys (docs/architecture.md):
``cleaned_file``, ``n_input``, ``n_clean``, ``n_errors``, ``n_duplicates_merged``, ``errors_file``,
``smiles_col``, ``activity_col``, ``id_col``, ``summary`` plus ``output_dir``, ``units``, ``activity_label``,
``activity_columns``, ``warnings``, ``errors_by_code``, ``source_file``, ``report_paths``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from molx_agent.agents.base import BaseAgent
from molx_agent.agents.modules.state import AgentState, Task
from molx_agent.errors import ValidationError

logger = logging.getLogger(__name__)


def task_files(task: Task, state: AgentState) -> list[str]:
    inputs = task.get("inputs") or {}
    return [str(f) for f in (inputs.get("files") or state.get("input_files") or []) if str(f).strip()]


def task_options(task: Task) -> dict[str, Any]:
    opts = (task.get("inputs") or {}).get("options") or {}
    return dict(opts) if isinstance(opts, dict) else {}


def task_query(task: Task, state: AgentState) -> str:
    return str((task.get("inputs") or {}).get("query") or state.get("user_query") or "")


def sheet_for(path: str, options: dict[str, Any], query: str) -> str | None:
    """The Excel sheet to read: the ``sheet`` option, else the one sheet the query names (``"the Ki sheet"``,
    ``"sheet Ki"``, ``"Ki 工作表"``), else None (a workbook with several sheets then fails, listing them)."""
    import re

    from molx_agent.sar.io import EXCEL_SUFFIXES, list_sheets

    if options.get("sheet"):
        return str(options["sheet"])
    if Path(path).suffix.lower() not in EXCEL_SUFFIXES or not query or not Path(path).is_file():
        return None
    sheets = list_sheets(path)
    if len(sheets) < 2:
        return None
    # ASCII word boundaries: "Ki工作表" names the sheet Ki too
    named = [s for s in sheets
             if re.search(rf"(?<![A-Za-z0-9_]){re.escape(s)}(?![A-Za-z0-9_])", query, flags=re.IGNORECASE)]
    return named[0] if len(named) == 1 else None


def read_task_table(path: str, options: dict[str, Any], query: str) -> Any:
    """:func:`molx_agent.sar.io.read_table` with the sheet from the options or the query; a workbook with several
    sheets and none named fails with a hint that fits the agent (name the sheet in the query)."""
    from molx_agent.errors import DataError
    from molx_agent.sar.io import read_table

    try:
        return read_table(path, sheet=sheet_for(path, options, query))
    except DataError as exc:
        if exc.code == "multiple_sheets":
            raise DataError(exc.code, exc.message, value=exc.value,
                            hint="name the sheet in the request (e.g. 'sheet Ki'), or run "
                                 "`molx-agent sar FILE --sheet NAME`") from exc
        raise


def clean_summary(doc: dict[str, Any], language: str, ignored: list[str]) -> str:
    name = Path(doc["source"]).name
    if language == "zh":
        text = (f"已清洗 {name}：输入 {doc['n_input']} 行，保留 {doc['n_clean']} 个化合物，合并重复 "
                f"{doc['n_duplicates_merged']} 行，拒绝 {doc['n_errors']} 行（原因见 {Path(doc['errors_file']).name}）。"
                f"识别的列：SMILES={doc['smiles_col']}，活性={doc['activity_col']}（{doc['units']}），ID={doc['id_col']}。")
        if doc["warnings"]:
            text += " 注意：" + "；".join(doc["warnings"])
        if ignored:
            text += f" 未处理的其他文件：{', '.join(ignored)}。"
        return text
    text = (f"Cleaned {name}: {doc['n_input']} rows in, {doc['n_clean']} compounds kept, "
            f"{doc['n_duplicates_merged']} duplicate rows merged, {doc['n_errors']} rows rejected (reasons in "
            f"{Path(doc['errors_file']).name}). Columns: SMILES={doc['smiles_col']}, activity={doc['activity_col']} "
            f"({doc['units']}), ID={doc['id_col']}.")
    if doc["warnings"]:
        text += " Note: " + "; ".join(doc["warnings"])
    if ignored:
        text += f" Other files not processed: {', '.join(ignored)}."
    return text


class DataCleanerAgent(BaseAgent):
    """Extract -> clean -> save (see the module docstring)."""

    name = "data_cleaner"
    description = "Reads, standardises and cleans compound data files (CSV, TSV, Excel, SDF)."
    option_keys = ("smiles_col", "activity_col", "id_col", "units", "sheet", "require_activity")

    def _run(self, task: Task, state: AgentState) -> dict[str, Any]:
        from molx_agent.io_utils import timestamped_dir
        from molx_agent.sar.clean import clean_table, require_valid, save_cleaned

        files = task_files(task, state)
        if not files:
            raise ValidationError("no_data_file", "no data file was given to clean",
                                  hint="pass a CSV/Excel/SDF file, e.g. molx-agent run --data series.csv")
        opts = task_options(task)
        path = files[0]
        table = read_task_table(path, opts, task_query(task, state))
        result = clean_table(
            table, smiles_col=opts.get("smiles_col"), activity_col=opts.get("activity_col"),
            id_col=opts.get("id_col"), units=opts.get("units"), llm=self.llm,
            require_activity=bool(opts.get("require_activity", False)),
        )
        out = Path(opts["output_dir"]) if opts.get("output_dir") else timestamped_dir(
            self.settings.output_dir, f"sar_{Path(path).stem}")
        save_cleaned(result, out)
        require_valid(result)  # nothing survived: the task fails, errors.csv (already written) says why
        doc = result.to_dict()
        language = state.get("language", "en")
        doc.update({
            "output_dir": str(out), "source_file": str(path), "sheet": table.sheet,
            "activity_columns": [c for c in [result.mapping.activity_col] if c],
            "report_paths": [p for p in (result.cleaned_file, result.errors_file) if p],
        })
        doc["summary"] = clean_summary(doc, language, files[1:])
        return doc


__all__ = ["DataCleanerAgent", "read_task_table", "sheet_for", "task_files", "task_options", "task_query"]
