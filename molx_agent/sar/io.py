"""Read SAR data files into a table of raw (string) cells.

Supported: CSV, TSV/TXT (delimiter sniffed), Excel ``.xlsx``/``.xlsm`` (one sheet; ``sheet=`` picks it),
SDF (``.sdf``/``.sd``; the structure becomes a ``SMILES`` column and every SD property a column).

Cells are kept as strings exactly as written (no NaN guessing), so the cleaning step can report the
raw value of every rejected cell.  Row ``i`` of :attr:`RawTable.df` is the ``i``-th data row of the
file (0-based, header excluded; the same index as ``pandas.read_csv``/``read_excel``: blank text lines are
skipped, empty spreadsheet rows in the middle count); every later step refers to input rows by that index.
"""

from __future__ import annotations

import io
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from molx_agent.errors import DataError
from molx_agent.io_utils import check_input_file, decode_text, sniff_text_encoding

logger = logging.getLogger(__name__)

CSV_SUFFIXES = (".csv",)
TSV_SUFFIXES = (".tsv", ".tab", ".txt", ".smi")
EXCEL_SUFFIXES = (".xlsx", ".xlsm")
SDF_SUFFIXES = (".sdf", ".sd")
SUPPORTED_SUFFIXES = CSV_SUFFIXES + TSV_SUFFIXES + EXCEL_SUFFIXES + SDF_SUFFIXES

#: Name of the SMILES column made from the structures of an SDF file.
SDF_SMILES_COLUMN = "SMILES"
#: Name of the column holding the SD title line (``_Name``) of an SDF file.
SDF_NAME_COLUMN = "_Name"
#: Column of parse problems of SDF records (empty when the record parsed).
SDF_ERROR_COLUMN = "_sdf_error"


@dataclass
class RawTable:
    """A data file read as strings."""

    df: pd.DataFrame
    source: str
    format: str
    sheet: str | None = None
    sheets: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # how the file was read, when it matters (encoding)

    @property
    def n_rows(self) -> int:
        return len(self.df)

    @property
    def columns(self) -> list[str]:
        return [str(c) for c in self.df.columns]


def check_data_file_content(path: str | Path) -> None:
    """The first bytes of a data file agree with its suffix, or ``DataError`` naming what the file really is.

    A text file (CSV/TSV/SMI/SDF) that is gzip- or zip-compressed (``compressed_file``) or holds NUL bytes
    (``binary_file``) is refused (UTF-16 with a byte-order mark is text); an ``.xlsx`` that is not a zip
    workbook is ``not_a_workbook``.
    """
    p = Path(path)
    with p.open("rb") as fh:
        head = fh.read(4096)
    if p.suffix.lower() in EXCEL_SUFFIXES:
        if head and not head.startswith(b"PK\x03\x04"):
            raise DataError("not_a_workbook", f"{p} is not an Excel workbook (an .xlsx file is a zip archive)",
                            value=str(p), hint="save it from Excel as .xlsx, or give a CSV file a .csv suffix")
        return
    sniff_text_encoding(head, p, "data file")


def read_table(path: str | Path, sheet: str | None = None) -> RawTable:
    """Read a CSV/TSV/Excel/SDF file.

    Raises :class:`DataError` with code ``file_not_found``, ``is_a_directory``, ``file_too_large``,
    ``unsupported_format``, ``empty_file``, ``unreadable_file``, ``compressed_file``, ``binary_file``,
    ``not_a_workbook``, ``ragged_rows`` (a row with more cells than the header), ``multiple_sheets`` (an Excel
    workbook with several sheets and no ``sheet``; the message lists them) or ``unknown_sheet``.
    """
    p = check_input_file(path, "data file", data=True)
    suffix = p.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise DataError(
            "unsupported_format",
            f"unsupported data file type {suffix or '(none)'!r}",
            value=str(p),
            hint="use CSV, TSV, Excel .xlsx or SDF",
        )
    if p.stat().st_size == 0:
        raise DataError("empty_file", f"data file is empty: {p}", value=str(p))
    check_data_file_content(p)
    if suffix in EXCEL_SUFFIXES:
        table = read_excel(p, sheet)
    elif suffix in SDF_SUFFIXES:
        table = read_sdf(p)
    else:
        table = read_delimited(p, sep="," if suffix in CSV_SUFFIXES else None)
    if table.n_rows == 0:
        raise DataError("empty_file", f"data file has a header but no data rows: {p}", value=str(p))
    return table


def _strip_frame(df: pd.DataFrame) -> pd.DataFrame:
    df.columns = [str(c).strip() for c in df.columns]
    # drop the empty rows at the END (formatted but empty spreadsheet rows); an empty row in the middle is
    # kept (it becomes an ``empty_row`` error record) so row numbers stay those of pandas and the spreadsheet
    mask = df.apply(lambda col: col.astype(str).str.strip() != "").any(axis=1).to_numpy()
    last = int(mask.nonzero()[0].max()) + 1 if mask.any() else 0
    return df.iloc[:last].reset_index(drop=True) if last < len(df) else df


def _ragged_error(path: Path, line: int, n_fields: int, n_header: int) -> DataError:
    return DataError(
        "ragged_rows",
        f"{path.name}: line {line} has {n_fields} fields but the header has {n_header}",
        value=str(path),
        hint="a value probably contains the separator without quotes; quote it, or fix the row",
    )


def _check_first_row(path: Path, head: str, sep: str) -> None:
    """A first data row longer than the header would make pandas shift every column (it reads the extra
    leading cells as an index), so the columns would be misnamed: refuse it, naming the line."""
    import csv

    rows = [r for r in csv.reader(io.StringIO(head), delimiter=sep) if any(c.strip() for c in r)][:2]
    if len(rows) == 2 and len(rows[1]) > len(rows[0]):
        raise _ragged_error(path, 2, len(rows[1]), len(rows[0]))


def read_delimited(path: Path, sep: str | None = None) -> RawTable:
    """Read CSV/TSV text; ``sep=None`` sniffs tab, comma or semicolon from the header.

    UTF-8 (with or without a byte-order mark) and UTF-16 with a byte-order mark are read as such; other text is
    read as cp1252 or latin-1 with a note.  A row with more fields than the header is ``ragged_rows``.
    """
    try:
        with path.open("rb") as fh:
            raw_head = fh.read(65536)
    except OSError as exc:
        raise DataError("unreadable_file", f"cannot read {path}: {exc.strerror or exc}", value=str(path)) from None
    utf16 = sniff_text_encoding(raw_head, path, "data file").startswith("utf-16")
    source: Path | io.StringIO = path
    if utf16:  # pandas cannot sniff it: decode once (size already checked)
        text = decode_text(path.read_bytes(), path, "data file")
        text_head = text[:20000]
    else:
        text_head = raw_head.decode("utf-8-sig", errors="replace")[:20000]
    if not text_head.strip():
        raise DataError("empty_file", f"data file is empty: {path}", value=str(path))
    first = text_head.splitlines()[0]
    if sep is None:
        sep = max(("\t", ",", ";"), key=first.count)
        if first.count(sep) == 0:
            sep = "\t"
    elif first.count(sep) == 0:
        # a ".csv" written by a spreadsheet in a decimal-comma locale uses ";" (or tabs)
        other = max(("\t", ";"), key=first.count)
        if first.count(other):
            sep = other
    _check_first_row(path, text_head, sep)
    notes: list[str] = []
    # UTF-8 first; files saved by Windows spreadsheets are often cp1252 ("µM" is byte 0xB5), latin-1 never fails
    for encoding in (("utf-16",) if utf16 else ("utf-8-sig", "cp1252", "latin-1")):
        try:
            if utf16:
                source = io.StringIO(text)
            df = pd.read_csv(source, sep=sep, dtype=str, keep_default_na=False,
                             encoding=None if utf16 else encoding, skip_blank_lines=True)
            break
        except UnicodeDecodeError:
            continue
        except pd.errors.EmptyDataError as exc:
            raise DataError("empty_file", f"data file is empty: {path}", value=str(path)) from exc
        except (pd.errors.ParserError, ValueError) as exc:
            ragged = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(exc))
            if ragged:
                n_header, line, n_fields = (int(x) for x in ragged.groups())
                raise _ragged_error(path, line, n_fields, n_header) from None
            raise DataError("unreadable_file", f"cannot parse {path}: {str(exc).strip()}", value=str(path)) from None
    if utf16:
        notes.append(f"{path.name} is UTF-16 text; read as such")
    elif encoding != "utf-8-sig":
        notes.append(f"{path.name} is not UTF-8; read as {encoding}")
    fmt = {",": "csv", "\t": "tsv", ";": "csv"}.get(sep, "csv")
    return RawTable(_strip_frame(df), str(path), fmt, notes=notes)


def list_sheets(path: str | Path) -> list[str]:
    """Sheet names of an Excel workbook."""
    try:
        with pd.ExcelFile(path, engine="openpyxl") as xls:
            return [str(s) for s in xls.sheet_names]
    except Exception as exc:  # noqa: BLE001 - openpyxl raises many types on corrupt files
        raise DataError("unreadable_file", f"cannot open Excel file {path}: {exc}", value=str(path)) from exc


def read_excel(path: Path, sheet: str | None = None) -> RawTable:
    """Read one sheet of a workbook; several sheets and no ``sheet`` is an error listing them."""
    sheets = list_sheets(path)
    if not sheets:
        raise DataError("empty_file", f"Excel file has no sheets: {path}", value=str(path))
    if sheet is None:
        if len(sheets) > 1:
            raise DataError(
                "multiple_sheets",
                f"{path.name} has {len(sheets)} sheets ({', '.join(sheets)}); choose one",
                value=sheets,
                hint="pass --sheet NAME (CLI) or sheet=NAME",
            )
        sheet = sheets[0]
    elif sheet not in sheets:
        if sheet.isdigit() and int(sheet) < len(sheets):
            sheet = sheets[int(sheet)]
        else:
            raise DataError(
                "unknown_sheet", f"sheet {sheet!r} not in {path.name}; sheets: {', '.join(sheets)}", value=sheet
            )
    try:
        df = pd.read_excel(path, sheet_name=sheet, dtype=str, keep_default_na=False, engine="openpyxl")
    except Exception as exc:  # noqa: BLE001
        raise DataError("unreadable_file", f"cannot read sheet {sheet!r} of {path}: {exc}", value=str(path)) from exc
    df = df.fillna("")
    return RawTable(_strip_frame(df), str(path), "xlsx", sheet=sheet, sheets=sheets)


def _sdf_record_text_fields(text: str) -> dict[str, str]:
    """Title line and SD properties of a raw record that RDKit could not parse (so its row keeps its ID and
    potency in the error records)."""

    lines = text.splitlines()
    row: dict[str, str] = {SDF_NAME_COLUMN: lines[0].strip() if lines else ""}
    k = 0
    while k < len(lines):
        m = re.match(r"^>.*<([^>]+)>", lines[k])
        k += 1
        if not m:
            continue
        values = []
        while k < len(lines) and lines[k].strip() != "":
            values.append(lines[k].rstrip())
            k += 1
        row[m.group(1)] = "\n".join(values)
    return row


def read_sdf(path: Path) -> RawTable:
    """Read an SDF: one row per record, ``SMILES`` from the structure, SD properties as columns.

    A record RDKit cannot parse keeps its row (empty ``SMILES``; title and SD properties read from the text)
    and its reason in ``_sdf_error``, so the cleaning step turns it into an error record instead of losing it.
    """
    from rdkit import Chem, RDLogger

    rows: list[dict[str, str]] = []
    RDLogger.DisableLog("rdApp.*")
    try:
        supplier = Chem.SDMolSupplier(str(path), sanitize=True, removeHs=True)
        for i, mol in enumerate(supplier):
            if mol is None:
                try:
                    row = _sdf_record_text_fields(supplier.GetItemText(i))
                except (RuntimeError, ValueError):  # pragma: no cover - the record text is always there
                    row = {}
                row.update({SDF_SMILES_COLUMN: "", SDF_ERROR_COLUMN: "RDKit could not parse the molblock"})
                rows.append(row)
                continue
            row = {SDF_NAME_COLUMN: mol.GetProp("_Name") if mol.HasProp("_Name") else ""}
            row[SDF_SMILES_COLUMN] = Chem.MolToSmiles(mol)
            for key in mol.GetPropNames():
                row[str(key)] = str(mol.GetProp(key))
            row[SDF_ERROR_COLUMN] = ""
            rows.append(row)
    except OSError as exc:
        raise DataError("unreadable_file", f"cannot read {path}: {exc}", value=str(path)) from exc
    finally:
        RDLogger.EnableLog("rdApp.*")
    if not rows:
        raise DataError("empty_file", f"SDF file has no records: {path}", value=str(path))
    df = pd.DataFrame(rows).fillna("").astype(str)
    cols = [SDF_NAME_COLUMN, SDF_SMILES_COLUMN] + [
        c for c in df.columns if c not in (SDF_NAME_COLUMN, SDF_SMILES_COLUMN, SDF_ERROR_COLUMN)
    ] + [SDF_ERROR_COLUMN]
    df = df[[c for c in cols if c in df.columns]]
    if (df[SDF_NAME_COLUMN] == "").all():
        df = df.drop(columns=[SDF_NAME_COLUMN])
    return RawTable(df, str(path), "sdf")


__all__ = ["RawTable", "read_table", "check_data_file_content", "read_delimited", "read_excel", "read_sdf", "list_sheets", "SUPPORTED_SUFFIXES"]
