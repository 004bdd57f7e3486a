"""Structure, reaction and route-tree drawings for the route report (PNG bytes).

Molecules and reactions are drawn with RDKit's Cairo drawer; the route-tree
figure composes those drawings with PIL (boxes coloured by role, arrows from
each product down to its precursors, step labels on the connectors).
Nothing here prints or touches the network.
"""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from PIL import Image, ImageDraw, ImageFont

if TYPE_CHECKING:  # pragma: no cover
    from molx_agent.retro.route import RetroGraph

logger = logging.getLogger(__name__)

# Role colours shared with the HTML stylesheet (keep in sync with route_report.css).
ROLE_COLOURS: dict[str, str] = {
    "target": "#1f4e79",
    "intermediate": "#6b7280",
    "in_stock": "#1a7f37",
    "terminal": "#b7791f",
    "unresolved": "#c53030",
}


def _strip_maps(mol):  # noqa: ANN001 - RDKit Mol
    for atom in mol.GetAtoms():
        atom.SetAtomMapNum(0)
    return mol


def _text_png(text: str, size: tuple[int, int]) -> bytes:
    """A plain card saying why a structure could not be drawn."""
    img = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(img)
    draw.rectangle([0, 0, size[0] - 1, size[1] - 1], outline="#c53030")
    draw.multiline_text((8, 8), text, fill="#c53030", font=_font(12))
    return _png_bytes(img)


def _png_bytes(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False)
    return buf.getvalue()


@lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def mol_png(smiles: str, size: tuple[int, int] = (300, 220)) -> bytes:
    """PNG drawing of one molecule (a red text card when the SMILES cannot be parsed)."""
    from rdkit import Chem
    from rdkit.Chem.Draw import rdMolDraw2D

    from molx_agent.chem.utils import quiet_rdkit

    with quiet_rdkit():
        mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        logger.warning("report: cannot draw unparsable SMILES %r", smiles)
        return _text_png(f"unparsable SMILES:\n{smiles[:60]}", size)
    _strip_maps(mol)
    drawer = rdMolDraw2D.MolDraw2DCairo(*size)
    opts = drawer.drawOptions()
    opts.clearBackground = True
    opts.padding = 0.08
    opts.bondLineWidth = 2
    opts.fixedBondLength = 28
    rdMolDraw2D.PrepareAndDrawMolecule(drawer, mol)
    drawer.FinishDrawing()
    return drawer.GetDrawingText()


def reaction_png(reaction_smiles: str, mol_width: int = 240, height: int = 200) -> bytes:
    """PNG drawing of ``reactants>>product`` (atom maps hidden)."""
    from rdkit import RDLogger
    from rdkit.Chem import rdChemReactions
    from rdkit.Chem.Draw import rdMolDraw2D

    parts = reaction_smiles.split(">")
    if len(parts) != 3:
        return _text_png(f"not a reaction SMILES:\n{reaction_smiles[:60]}", (mol_width * 2, height))
    display = f"{parts[0]}>>{parts[2]}"  # reagents are listed in text, not drawn
    RDLogger.DisableLog("rdApp.*")
    try:
        rxn = rdChemReactions.ReactionFromSmarts(display, useSmiles=True)
    except Exception:  # noqa: BLE001 - RDKit raises ValueError or RuntimeError
        rxn = None
    finally:
        RDLogger.EnableLog("rdApp.*")
    if rxn is None:
        return _text_png(f"unparsable reaction:\n{reaction_smiles[:60]}", (mol_width * 2, height))
    for mol in list(rxn.GetReactants()) + list(rxn.GetProducts()):
        _strip_maps(mol)
    n = rxn.GetNumReactantTemplates() + rxn.GetNumProductTemplates()
    width = max(2, n) * mol_width + 60
    drawer = rdMolDraw2D.MolDraw2DCairo(width, height)
    opts = drawer.drawOptions()
    opts.padding = 0.05
    opts.bondLineWidth = 2
    drawer.DrawReaction(rxn)
    drawer.FinishDrawing()
    return drawer.GetDrawingText()


# ---------------------------------------------------------------------------
# Route-tree figure
# ---------------------------------------------------------------------------
@dataclass
class _Box:
    node_id: str
    x: float  # centre, in cell units
    level: int
    colour: str
    label: str


CELL_W, CELL_H = 230, 250  # one tree cell, pixels
IMG_W, IMG_H = 200, 150  # molecule drawing inside a cell
MAX_FIGURE_WIDTH = 6000


def _layout(graph: RetroGraph, status_of) -> tuple[list[_Box], list[tuple[str, str, str]]]:  # noqa: ANN001
    """Leaves take consecutive slots left to right; a product sits above its precursors' centre."""
    boxes: dict[str, _Box] = {}
    edges: list[tuple[str, str, str]] = []  # (product, precursor, step label)
    next_slot = [0.0]
    visiting: set[str] = set()

    def place(node_id: str, level: int) -> float:
        if node_id in visiting:  # defensive: a cyclic graph is drawn as a leaf
            x = next_slot[0]
            next_slot[0] += 1
            return x
        visiting.add(node_id)
        rxn = graph.reaction_for(node_id)
        if rxn and rxn.reactant_nodes:
            xs = []
            for child in rxn.reactant_nodes:
                xs.append(place(child, level + 1))
                edges.append((node_id, child, rxn.step_id))
            x = sum(xs) / len(xs)
        else:
            x = next_slot[0]
            next_slot[0] += 1
        kind, label = status_of(graph.molecule_nodes[node_id])
        boxes[node_id] = _Box(node_id, x, level, ROLE_COLOURS.get(kind, "#6b7280"), label)
        visiting.discard(node_id)
        return x

    place(graph.target_id, 0)
    return list(boxes.values()), edges


def _fit(text: str, font, width: int) -> str:  # noqa: ANN001
    if font.getlength(text) <= width:
        return text
    while text and font.getlength(text + "…") > width:
        text = text[:-1]
    return text + "…"


def tree_png(graph: RetroGraph, mol_pngs: dict[str, bytes], status_of) -> bytes:  # noqa: ANN001
    """The whole route as one PNG: target on top, starting materials at the bottom.

    ``mol_pngs`` maps node id -> PNG of the molecule; ``status_of(node)`` returns
    ``(kind, label)`` with kind one of :data:`ROLE_COLOURS`.
    """
    boxes, edges = _layout(graph, status_of)
    n_cols = max(1, int(max(b.x for b in boxes)) + 1)
    n_rows = max(b.level for b in boxes) + 1
    scale = min(1.0, MAX_FIGURE_WIDTH / (n_cols * CELL_W))
    box_h = IMG_H + 44
    width, height = n_cols * CELL_W, (n_rows - 1) * CELL_H + box_h + 24
    img = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(img)
    small, bold = _font(12), _font(13)
    pos = {b.node_id: ((b.x + 0.5) * CELL_W, b.level * CELL_H + 10) for b in boxes}

    # connectors first, so boxes paint over them
    for parent, child, _step in edges:
        px, py = pos[parent]
        cx, cy = pos[child]
        y0, y1 = py + box_h, cy
        ymid = (y0 + y1) / 2
        draw.line([(px, y0), (px, ymid)], fill="#9ca3af", width=2)
        draw.line([(px, ymid), (cx, ymid)], fill="#9ca3af", width=2)
        draw.line([(cx, ymid), (cx, y1)], fill="#9ca3af", width=2)
    seen_steps: set[str] = set()
    for parent, _child, step in edges:
        if step in seen_steps:
            continue
        seen_steps.add(step)
        px, py = pos[parent]
        label = step
        tw = bold.getlength(label)
        ly = py + box_h + (CELL_H - box_h) / 2 - 18
        draw.rounded_rectangle([px - tw / 2 - 6, ly - 2, px + tw / 2 + 6, ly + 16], 6, fill="#eef2f7",
                               outline="#9ca3af")
        draw.text((px - tw / 2, ly), label, fill="#1f2937", font=bold)

    for b in boxes:
        cx, top = pos[b.node_id]
        left = cx - (IMG_W + 12) / 2
        draw.rounded_rectangle([left, top, left + IMG_W + 12, top + box_h], 8, fill="white", outline=b.colour,
                               width=3)
        png = mol_pngs.get(b.node_id)
        if png:
            mol_img = Image.open(io.BytesIO(png)).convert("RGB")
            mol_img.thumbnail((IMG_W, IMG_H))
            img.paste(mol_img, (int(cx - mol_img.width / 2), int(top + 4)))
        draw.text((left + 8, top + IMG_H + 6), b.node_id, fill="#111827", font=bold)
        draw.text((left + 8, top + IMG_H + 24), _fit(b.label, small, IMG_W), fill=b.colour, font=small)

    if scale < 1.0:
        img = img.resize((int(width * scale), int(height * scale)), Image.LANCZOS)
    return _png_bytes(img)


__all__ = ["ROLE_COLOURS", "mol_png", "reaction_png", "tree_png"]
