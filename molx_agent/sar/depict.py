"""Inline images for the SAR report: RDKit SVG depictions and matplotlib plots as ``data:`` URIs.

Everything is embedded (base64 ``data:image/svg+xml``), so the report needs no network, no CDN and no
JavaScript.  matplotlib is used through :class:`matplotlib.figure.Figure` (no pyplot, no global backend).
"""

from __future__ import annotations

import base64
import html
import io
import logging
from collections.abc import Sequence
from functools import lru_cache

logger = logging.getLogger(__name__)

PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf"]


def svg_data_uri(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")


def _to_mol(text: str):
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")
    try:
        mol = Chem.MolFromSmiles(text)
        if mol is None:
            mol = Chem.MolFromSmiles(text, sanitize=False)
            if mol is not None:
                mol.UpdatePropertyCache(strict=False)
                Chem.FastFindRings(mol)
        if mol is None:
            mol = Chem.MolFromSmarts(text)
            if mol is not None:
                mol.UpdatePropertyCache(strict=False)
                Chem.FastFindRings(mol)
        return mol
    finally:
        RDLogger.EnableLog("rdApp.*")


@lru_cache(maxsize=20_000)
def mol_svg(smiles: str, width: int = 220, height: int = 160) -> str | None:
    """SVG depiction of a SMILES (or SMARTS) string; None when it cannot be drawn."""
    from rdkit.Chem import rdDepictor
    from rdkit.Chem.Draw import rdMolDraw2D

    mol = _to_mol(smiles)
    if mol is None:
        return None
    for atom in mol.GetAtoms():  # [*:2] is drawn as R2
        if atom.GetAtomicNum() == 0 and atom.GetAtomMapNum():
            atom.SetProp("atomLabel", f"R{atom.GetAtomMapNum()}")
            atom.SetAtomMapNum(0)
    try:
        rdDepictor.Compute2DCoords(mol)
        drawer = rdMolDraw2D.MolDraw2DSVG(width, height)
        opts = drawer.drawOptions()
        opts.clearBackground = False
        opts.padding = 0.08
        opts.fixedBondLength = 28  # small fragments stay small
        opts.maxFontSize = 16
        opts.prepareMolsBeforeDrawing = True
        try:
            rdMolDraw2D.PrepareAndDrawMolecule(drawer, mol)
        except Exception:  # noqa: BLE001 - unkekulizable fragments: draw as is
            opts.prepareMolsBeforeDrawing = False
            drawer = rdMolDraw2D.MolDraw2DSVG(width, height)
            drawer.drawOptions().clearBackground = False
            drawer.DrawMolecule(mol)
        drawer.FinishDrawing()
        return drawer.GetDrawingText()
    except Exception as exc:  # noqa: BLE001
        logger.info("cannot depict %s: %s", smiles, exc)
        return None


@lru_cache(maxsize=2_000)
def highlighted_svg(smiles: str, core_smarts: str, width: int = 240, height: int = 170) -> str | None:
    """``smiles`` drawn with the atoms matching ``core_smarts`` highlighted (None when it does not match)."""
    from rdkit import Chem
    from rdkit.Chem import rdDepictor
    from rdkit.Chem.Draw import rdMolDraw2D

    mol = Chem.MolFromSmiles(smiles)
    query = Chem.MolFromSmarts(core_smarts)
    if mol is None or query is None:
        return None
    match = mol.GetSubstructMatch(query)
    if not match:
        return None
    atoms = set(match)
    bonds = [b.GetIdx() for b in mol.GetBonds() if b.GetBeginAtomIdx() in atoms and b.GetEndAtomIdx() in atoms]
    rdDepictor.Compute2DCoords(mol)
    drawer = rdMolDraw2D.MolDraw2DSVG(width, height)
    drawer.drawOptions().clearBackground = False
    drawer.drawOptions().fixedBondLength = 28
    rdMolDraw2D.PrepareAndDrawMolecule(drawer, mol, highlightAtoms=list(atoms), highlightBonds=bonds)
    drawer.FinishDrawing()
    return drawer.GetDrawingText()


def core_img(example_smiles: str | None, core_smarts: str | None, core_smiles: str | None) -> str:
    """The core shown on a real member of the series (core atoms highlighted), else the core alone."""
    if example_smiles and core_smarts:
        try:
            svg = highlighted_svg(example_smiles, core_smarts)
        except Exception:  # noqa: BLE001 - fall back to the core on its own
            svg = None
        if svg is not None:
            alt = html.escape(f"core {core_smiles} on {example_smiles}", quote=True)
            return f'<img class="mol" width="240" height="170" alt="{alt}" title="{alt}" src="{svg_data_uri(svg)}">'
    return mol_img(core_smiles, 200, 140)


def mol_img(smiles: str | None, width: int = 220, height: int = 160, css: str = "mol") -> str:
    """``<img>`` with an inline depiction, or the SMILES as text when it cannot be drawn."""
    if not smiles:
        return ""
    svg = mol_svg(smiles, width, height)
    alt = html.escape(smiles, quote=True)
    if svg is None:
        return f'<code class="smi">{html.escape(smiles)}</code>'
    return f'<img class="{css}" width="{width}" height="{height}" alt="{alt}" title="{alt}" src="{svg_data_uri(svg)}">'


def figure_img(fig, alt: str, fmt: str = "png") -> str:
    """Serialise a matplotlib Figure as an inline ``<img>`` (PNG for dense plots, or SVG)."""
    alt_attr = html.escape(alt, quote=True)
    if fmt == "svg":
        buf = io.StringIO()
        fig.savefig(buf, format="svg")
        svg = buf.getvalue()
        return f'<img class="plot" alt="{alt_attr}" src="{svg_data_uri(svg[svg.find("<svg"):])}">'
    raw = io.BytesIO()
    fig.savefig(raw, format="png", dpi=110)
    b64 = base64.b64encode(raw.getvalue()).decode("ascii")
    return f'<img class="plot" alt="{alt_attr}" src="data:image/png;base64,{b64}">'


def _new_figure(w: float = 5.2, h: float = 3.6):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(w, h), dpi=100, layout="constrained")
    return fig, fig.add_subplot(111)


def histogram_img(values: Sequence[float], label: str, title: str) -> str:
    fig, ax = _new_figure()
    ax.hist(list(values), bins=min(40, max(5, len(values) // 10)), color=PALETTE[0], edgecolor="white")
    ax.set_xlabel(label)
    ax.set_ylabel("compounds")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    return figure_img(fig, title)


def scatter_img(xs: Sequence[float], ys: Sequence[float], groups: Sequence[str], xlabel: str, ylabel: str,
                title: str, max_groups: int = 8) -> str:
    """Scatter coloured by group (the largest ``max_groups`` groups; the rest grey)."""
    from collections import Counter

    fig, ax = _new_figure()
    top = [g for g, _ in Counter(g for g in groups if g).most_common(max_groups)]
    colour = {g: PALETTE[i % len(PALETTE)] for i, g in enumerate(top)}
    other_x = [x for x, g in zip(xs, groups, strict=True) if g not in colour]
    other_y = [y for y, g in zip(ys, groups, strict=True) if g not in colour]
    if other_x:
        ax.scatter(other_x, other_y, s=10, c="#bbbbbb", alpha=0.6, label="other", linewidths=0)
    for g in top:
        gx = [x for x, gg in zip(xs, groups, strict=True) if gg == g]
        gy = [y for y, gg in zip(ys, groups, strict=True) if gg == g]
        ax.scatter(gx, gy, s=14, c=colour[g], alpha=0.8, label=g, linewidths=0)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    if len(top) + bool(other_x) > 1:
        # outside the axes, framed: a legend marker inside the plot reads as one more compound
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=True, title="series",
                  title_fontsize=7)
    return figure_img(fig, title)


def bar_img(labels: Sequence[str], values: Sequence[float], errors: Sequence[float] | None, ylabel: str,
            title: str) -> str:
    fig, ax = _new_figure(6.0, 3.4)
    xs = list(range(len(labels)))
    ax.bar(xs, list(values), yerr=list(errors) if errors is not None else None, color=PALETTE[0], capsize=2)
    ax.set_xticks(xs)
    ax.set_xticklabels([lab if len(lab) <= 18 else lab[:16] + "…" for lab in labels], rotation=60, ha="right",
                       fontsize=7)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3, axis="y")
    if len(values):
        lo = min(values) - 0.5
        ax.set_ylim(bottom=max(0.0, lo))
    return figure_img(fig, title)


__all__ = ["mol_svg", "mol_img", "core_img", "highlighted_svg", "figure_img", "histogram_img", "scatter_img", "bar_img", "svg_data_uri"]
