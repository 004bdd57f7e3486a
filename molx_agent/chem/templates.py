"""Named retro-template library (packaged ``data/named_templates.json``).

Each template is a hand-written retro reaction SMARTS (``product>>reactants``, RDKit/rdchiral
compatible) with a reaction name, a category, a kind (``disconnection``, ``fgi``, ``protection``,
``deprotection``, ``ring_formation``), a prior ``confidence``, typical reagents, expected byproducts and
the functional groups it does not tolerate elsewhere in the molecule.

- :func:`load_named_templates` -> tuple of frozen :class:`NamedTemplate` (parsed once);
- :func:`apply_named_template` -> unique canonical precursor sets (rdchiral, stereo aware);
- :func:`run_named_template` -> the same plus which bonds of the input each outcome breaks;
- :func:`template_sites` -> compiled product-side patterns with the bonds each template breaks, so a
  molecule can be scanned once per template without running any reaction (see ``template_scan``);
- :func:`resolve_template_ids` -> ids from ids, id prefixes (``G02``) or reaction names.

Atom indices always refer to the input SMILES exactly as given (RDKit parse order).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any

from rdkit import Chem
from rdkit.Chem import rdChemReactions

from molx_agent.chem.utils import load_data, parse_mol, quiet_rdkit
from molx_agent.errors import ChemistryError

log = logging.getLogger(__name__)

KINDS = ("disconnection", "fgi", "protection", "deprotection", "ring_formation")


@dataclass(frozen=True)
class NamedTemplate:
    """One named retro template."""

    id: str
    name: str
    category: str
    kind: str
    retro_smarts: str
    confidence: float
    reagents: str = ""
    byproducts: tuple[str, ...] = ()
    incompatible_groups: tuple[str, ...] = ()
    #: A template of higher priority names a precursor set several templates give (``retro.named_templates``); the
    #: default 0 leaves it to file order.  A narrow template (a copper amination of 2-halobenzoic acids) outranks
    #: the broad ones that give the same precursors (S_N_Ar, Buchwald-Hartwig).
    priority: int = 0
    #: What sets the stereocentre the template makes from a flat (sp2) precursor carbon: "catalyst" for an
    #: asymmetric catalyst its reagents name (Ru-BINAP, Rh-DIPAMP, CBS).  Such a template applies only where the step
    #: gains a specified stereocentre (:func:`gains_stereocentre`), and the route judgement does not call that centre
    #: unsourced.  "" for every other template.
    stereo_source: str = ""
    #: The reagent its conditions name that activates an amide-type carbonyl for an amine ("POCl3": the
    #: 1-acetylimidazolidin-2-one's C=O condensed with an aryl amine), so the route judgement does not call the step
    #: an unactivated ``amide_condensation`` (``chem.mechanism``).  "" for every other template.
    activator: str = ""

    @property
    def display_name(self) -> str:
        """Seed-style label, e.g. ``Amide Bond Formation (Retro, ester amide)``."""
        return f"{self.name} (Retro, {self.category.replace('_', ' ')})"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["byproducts"] = list(self.byproducts)
        data["incompatible_groups"] = list(self.incompatible_groups)
        data["display_name"] = self.display_name
        return data


@dataclass(frozen=True)
class TemplateOutcome:
    """One result of running a template: canonical precursors and the input bonds it breaks."""

    template_id: str
    precursors: tuple[str, ...]
    broken_bonds: frozenset[tuple[int, int]] = field(default_factory=frozenset)
    mapped_precursors: str = ""


@dataclass(frozen=True)
class TemplateSite:
    """Product-side pattern of a template and the pattern bonds the template breaks."""

    template: NamedTemplate
    pattern: Chem.Mol
    broken_pairs: tuple[tuple[int, int], ...]  # pattern atom indices
    required: frozenset[int]
    pattern_key: str = ""  # SMARTS of the pattern: templates sharing it are matched once per molecule


# ---------------------------------------------------------------------------------------------- loading
@lru_cache(maxsize=1)
def _library() -> dict[str, Any]:
    data = load_data("named_templates")
    if not isinstance(data, dict) or "templates" not in data:
        raise ChemistryError("invalid_template_library", "named_templates.json has no 'templates' list")
    return data


def load_named_templates() -> list[NamedTemplate]:
    """All named templates, in file order (ids ``G01_...`` upwards); parsed once, a fresh list each call."""
    return list(_load_templates())


@lru_cache(maxsize=1)
def _load_templates() -> tuple[NamedTemplate, ...]:
    out = []
    for row in _library()["templates"]:
        out.append(
            NamedTemplate(
                id=row["id"],
                name=row["name"],
                category=row["category"],
                kind=row.get("kind", "disconnection"),
                retro_smarts=row["retro_smarts"],
                confidence=float(row.get("confidence", 0.5)),
                reagents=row.get("reagents", ""),
                byproducts=tuple(row.get("byproducts", ())),
                incompatible_groups=tuple(row.get("incompatible_groups", ())),
                priority=int(row.get("priority", 0)),
                stereo_source=str(row.get("stereo_source", "")),
                activator=str(row.get("activator", "")),
            )
        )
    return tuple(out)


def stereo_setting_templates() -> dict[str, str]:
    """Id and name of every named template that sets its stereocentre with an asymmetric catalyst -> its
    ``stereo_source`` (a route step carries one or the other: ``TemplateEvidence.template_id`` / ``template_name``)."""
    return dict(_keyed_by_id_and_name("stereo_source"))


def activating_templates() -> dict[str, str]:
    """Id and name of every named template whose conditions activate an amide-type carbonyl for an amine -> its
    :attr:`NamedTemplate.activator` (a route step carries one or the other, as for :func:`stereo_setting_templates`)."""
    return dict(_keyed_by_id_and_name("activator"))


@lru_cache(maxsize=2)
def _keyed_by_id_and_name(attr: str) -> tuple[tuple[str, str], ...]:
    """(id, value) and (name, value) of every named template whose string attribute ``attr`` is set."""
    return tuple((key, getattr(t, attr)) for t in _load_templates() if getattr(t, attr) for key in (t.id, t.name))


def _specified_centres(smiles: str) -> int:
    """Tetrahedral stereocentres of ``smiles`` whose configuration is drawn (0 for a molecule RDKit cannot read)."""
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return 0
    return len(Chem.FindMolChiralCenters(mol, includeUnassigned=False, useLegacyImplementation=False))


def gains_stereocentre(product: str, precursors: Iterable[str]) -> bool:
    """Whether ``product`` has more drawn tetrahedral stereocentres than ``precursors`` together: the step makes one.
    A stereo-setting template (:attr:`NamedTemplate.stereo_source`) applies only then, so an asymmetric reduction
    never names the reduction of benzophenone (benzhydrol has no stereocentre) or of a racemate."""
    return _specified_centres(product) > sum(_specified_centres(p) for p in precursors)


def template_name_zh(name: str) -> str:
    """The Chinese name of a named template's ``name`` (``data/named_template_names_zh.json``: person names and
    reagents as written, e.g. "Suzuki 偶联（芳基氯）"); ``name`` itself when it is no template's name."""
    return _names_zh().get(name, name)


@lru_cache(maxsize=1)
def _names_zh() -> dict[str, str]:
    data = load_data("named_template_names_zh")
    return data if isinstance(data, dict) else {}


@lru_cache(maxsize=1)
def _by_id() -> dict[str, NamedTemplate]:
    return {t.id: t for t in _load_templates()}


def get_template(template_id: str) -> NamedTemplate:
    """The template with this exact id; ``ChemistryError(code="unknown_template")`` otherwise."""
    tpl = _by_id().get(template_id)
    if tpl is None:
        raise ChemistryError(
            "unknown_template", f"no named template {template_id!r}", value=template_id,
            hint="ids look like 'G02_amide_retro'; resolve_template_ids() accepts names and prefixes",
        )
    return tpl


@lru_cache(maxsize=1)
def group_patterns() -> dict[str, Chem.Mol]:
    """Compiled SMARTS of the groups named in ``incompatible_groups``."""
    out = {}
    for name, smarts in _library().get("group_smarts", {}).items():
        patt = Chem.MolFromSmarts(smarts)
        if patt is None:
            raise ChemistryError("invalid_smarts", f"bad group SMARTS for {name}", value=smarts)
        out[name] = patt
    return out


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def resolve_template_ids(names_or_ids: str | Iterable[str], *, strict: bool = True) -> list[str]:
    """Template ids for ids, id prefixes (``"G02"``) or reaction names (``"Suzuki"``, ``"amide"``).

    An exact id or prefix gives one id; a name gives every template whose name contains it (exact
    name matches first). With ``strict`` (default) an unresolvable entry raises
    ``ChemistryError(code="unknown_template", value=entry)``; otherwise it is skipped.
    """
    entries = [names_or_ids] if isinstance(names_or_ids, str) else list(names_or_ids)
    templates = _load_templates()
    out: list[str] = []
    for entry in entries:
        if not isinstance(entry, str) or not entry.strip():
            if strict:
                raise ChemistryError("unknown_template", "empty template name", value=entry)
            continue
        key = entry.strip()
        hits: list[str] = []
        if key in _by_id():
            hits = [key]
        else:
            low = key.lower()
            hits = [t.id for t in templates if t.id.lower() == low or t.id.lower().startswith(low + "_")]
            if not hits:
                nkey = _norm(key)
                exact = [t.id for t in templates if _norm(t.name) == nkey or _norm(t.display_name) == nkey]
                partial = [
                    t.id for t in templates
                    if t.id not in exact and nkey and (nkey in _norm(t.name) or nkey in _norm(t.id))
                ]
                hits = exact + partial
        if not hits:
            if strict:
                raise ChemistryError(
                    "unknown_template", f"no named template matches {key!r}", value=key,
                    hint="use an id such as 'G02_amide_retro' or a reaction name such as 'Suzuki'",
                )
            continue
        out.extend(h for h in hits if h not in out)
    return out


# ----------------------------------------------------------------------------------------- removed atoms
def _counterpart_maps(reaction: rdChemReactions.ChemicalReaction) -> set[int]:
    """Map numbers (non-zero) of the template's precursor-side atoms: a product-side atom with none has no
    counterpart."""
    return {a.GetAtomMapNum() for t in reaction.GetProducts() for a in t.GetAtoms() if a.GetAtomMapNum()}


def removed_atom_count(reaction: rdChemReactions.ChemicalReaction) -> int:
    """How many product-side atoms of a retro template have no counterpart among its precursors.

    A hand-written template may write a protecting or leaving group as unmapped atoms on both sides (the benzyl of
    ``[O:2]-[CH2]-c1ccccc1>>[OH:2].BrCc1ccccc1``): RDKit removes the product atoms they match and builds the group
    anew.  Templates extracted from mapped reactions map every product-side atom (0 here).
    """
    return removal_signature(reaction)[0]


def removal_signature(reaction: rdChemReactions.ChemicalReaction) -> tuple[int, int]:
    """(:func:`removed_atom_count`, how many of the template's product-side bonds join such an atom to one with a
    counterpart): what an outcome that removes exactly the matched group loses (:func:`removes_only_matched_atoms`)."""
    kept = _counterpart_maps(reaction)
    removed = sum(1 for t in reaction.GetReactants() for a in t.GetAtoms() if a.GetAtomMapNum() not in kept)
    boundary = sum((b.GetBeginAtom().GetAtomMapNum() in kept) != (b.GetEndAtom().GetAtomMapNum() in kept)
                   for t in reaction.GetReactants() for b in t.GetBonds())
    return removed, boundary


def removes_only_matched_atoms(outcome: tuple[Chem.Mol, ...], product: Chem.Mol, signature: tuple[int, int]) -> bool:
    """Whether an RDKit ``RunReactants`` outcome of a retro template on ``product`` lost exactly the product atoms
    the template's unmapped atoms matched and no product bond the template does not name (``signature``:
    :func:`removal_signature`).

    RDKit also drops every product atom it can reach only through a removed atom, and a kept atom silently loses a
    bond to a removed one that the template does not show.  Both happen when the template's group matched part of a
    larger structure (its "phenyl" a substituted or fused ring of the product): the outcome then writes a fresh
    group where the product had something else, and is no precursor set of this product.  So the outcome must miss
    exactly as many product atoms as the template removes, joined to the kept atoms by exactly as many bonds as the
    template's group has to its mapped atoms.
    """
    n_removed, n_boundary = signature
    present: set[int] = set()
    for mol in outcome:
        for atom in mol.GetAtoms():
            if atom.HasProp("react_atom_idx"):
                present.add(atom.GetIntProp("react_atom_idx"))
    if product.GetNumAtoms() - len(present) != n_removed:
        return False
    boundary = sum(1 for b in product.GetBonds() if (b.GetBeginAtomIdx() in present) != (b.GetEndAtomIdx() in present))
    return boundary == n_boundary


class MatchedRemovalOnly:
    """Wraps an RDKit retro reaction so ``RunReactants`` keeps only the outcomes that remove exactly the product
    atoms the template's unmapped atoms matched (:func:`removes_only_matched_atoms`); a template that maps every
    product-side atom is passed through untouched."""

    def __init__(self, reaction: Any) -> None:
        self._reaction = reaction
        self.signature = removal_signature(reaction)

    def RunReactants(self, reactants: tuple, *args: Any, **kwargs: Any) -> tuple:  # noqa: N802 - RDKit name
        outcomes = self._reaction.RunReactants(reactants, *args, **kwargs)
        if not self.signature[0] or not outcomes:
            return outcomes
        return tuple(o for o in outcomes if removes_only_matched_atoms(o, reactants[0], self.signature))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._reaction, name)


# ----------------------------------------------------------------------------------------- compilation
@lru_cache(maxsize=256)
def _rdchiral_reaction(template_id: str):
    from rdchiral.initialization import rdchiralReaction

    tpl = get_template(template_id)
    try:
        with quiet_rdkit():
            rxn = rdchiralReaction(tpl.retro_smarts)
    except Exception as exc:  # rdchiral raises bare ValueErrors
        raise ChemistryError("invalid_template", f"template {template_id} does not compile: {exc}",
                             value=tpl.retro_smarts) from exc
    rxn.rxn = MatchedRemovalOnly(rxn.rxn)
    return rxn


@lru_cache(maxsize=512)
def _rdchiral_reactants(smiles: str):
    from rdchiral.initialization import rdchiralReactants

    parse_mol(smiles)  # ChemistryError: unparsable, whitespace inside, too large (molx_agent.limits)
    with quiet_rdkit():
        return rdchiralReactants(smiles)


def _required_elements(pattern: Chem.Mol) -> frozenset[int]:
    """Atomic numbers every match needs (atoms whose query is one plain element)."""
    req = set()
    for atom in pattern.GetAtoms():
        text = atom.GetSmarts()
        m = re.match(r"^\[?(#\d+|Cl|Br|Si|Sn|Zn|Mg|Li|[BCNOSPFIcnosp])(?=[;:\]&H+\-@]|$)", text)
        if not m or "," in text.split(";")[0]:
            continue
        token = m.group(1)
        if token.startswith("#"):
            req.add(int(token[1:]))
        else:
            req.add(Chem.GetPeriodicTable().GetAtomicNumber(token.capitalize() if len(token) == 1 else token))
    return frozenset(req)


@lru_cache(maxsize=1)
def template_sites() -> tuple[TemplateSite, ...]:
    """Product-side pattern and broken bonds of every template (compiled once)."""
    sites = []
    for tpl in _load_templates():
        with quiet_rdkit():
            rxn = rdChemReactions.ReactionFromSmarts(tpl.retro_smarts)
        if rxn is None or rxn.GetNumReactantTemplates() != 1:
            raise ChemistryError("invalid_template", f"template {tpl.id} must have one product pattern",
                                 value=tpl.retro_smarts)
        patt = Chem.Mol(rxn.GetReactantTemplate(0))
        patt.UpdatePropertyCache(strict=False)
        Chem.FastFindRings(patt)
        kept: set[frozenset[int]] = set()
        kept_maps: set[int] = set()
        for k in range(rxn.GetNumProductTemplates()):
            prod = rxn.GetProductTemplate(k)
            for a in prod.GetAtoms():
                if a.GetAtomMapNum():
                    kept_maps.add(a.GetAtomMapNum())
            for b in prod.GetBonds():
                m1, m2 = b.GetBeginAtom().GetAtomMapNum(), b.GetEndAtom().GetAtomMapNum()
                if m1 and m2:
                    kept.add(frozenset((m1, m2)))
        broken = []
        for b in patt.GetBonds():
            a1, a2 = b.GetBeginAtom(), b.GetEndAtom()
            m1, m2 = a1.GetAtomMapNum(), a2.GetAtomMapNum()
            in1, in2 = m1 in kept_maps, m2 in kept_maps
            if in1 and in2:
                if frozenset((m1, m2)) not in kept:
                    broken.append((a1.GetIdx(), a2.GetIdx()))
            elif in1 != in2:  # bond from a kept atom to an atom the template removes (e.g. a Boc group)
                broken.append((a1.GetIdx(), a2.GetIdx()))
        for a in patt.GetAtoms():
            a.SetAtomMapNum(0)
        sites.append(TemplateSite(tpl, patt, tuple(broken), _required_elements(patt), Chem.MolToSmarts(patt)))
    return tuple(sites)


# ------------------------------------------------------------------------------------------- running
def _canonical_parts(smiles: str) -> tuple[str, ...] | None:
    parts = []
    for piece in smiles.split("."):
        with quiet_rdkit():
            mol = Chem.MolFromSmiles(piece)
        if mol is None:
            return None
        parts.append(Chem.MolToSmiles(mol))
    return tuple(sorted(parts))


def _broken_from_mapped(mapped: str, target: Chem.Mol) -> frozenset[tuple[int, int]]:
    """Bonds of the target absent from a mapped outcome (maps are target index + 1)."""
    with quiet_rdkit():
        out = Chem.MolFromSmiles(mapped, sanitize=False)
    if out is None:
        return frozenset()
    n = target.GetNumAtoms()
    present = {a.GetAtomMapNum() - 1 for a in out.GetAtoms() if 0 < a.GetAtomMapNum() <= n}
    bonds = set()
    for b in out.GetBonds():
        i, j = b.GetBeginAtom().GetAtomMapNum() - 1, b.GetEndAtom().GetAtomMapNum() - 1
        if 0 <= i < n and 0 <= j < n:
            bonds.add((min(i, j), max(i, j)))
    broken = set()
    for b in target.GetBonds():
        i, j = sorted((b.GetBeginAtomIdx(), b.GetEndAtomIdx()))
        if (i, j) in bonds:
            continue
        if i in present or j in present:
            broken.add((i, j))
    return frozenset(broken)


def run_named_template(template_id: str, smiles: str) -> list[TemplateOutcome]:
    """Run one named template on ``smiles``; outcomes carry the input bonds they break."""
    from rdchiral.main import rdchiralRun

    from molx_agent.chem.sulfinyl_stereo import sulfinyl_stereo_in_rdchiral

    if not isinstance(smiles, str) or not smiles.strip():
        raise ChemistryError("invalid_smiles", "empty SMILES", value=smiles)
    smiles = smiles.strip()
    rxn = _rdchiral_reaction(template_id)
    reactants = _rdchiral_reactants(smiles)
    with quiet_rdkit(), sulfinyl_stereo_in_rdchiral():  # a sulfinyl S keeps its configuration (chem.sulfinyl_stereo)
        try:
            outcomes, mapped = rdchiralRun(rxn, reactants, return_mapped=True)
        except Exception as exc:  # noqa: BLE001 - rdchiral fails on odd valences; no outcome then
            log.debug("template %s failed on %s: %s", template_id, smiles, exc)
            return []
    target = Chem.MolFromSmiles(smiles)
    results: dict[tuple[str, ...], TemplateOutcome] = {}
    stereo_setting = bool(get_template(template_id).stereo_source)
    for text in sorted(outcomes):
        parts = _canonical_parts(text)
        if not parts or parts in results:
            continue
        if stereo_setting and not gains_stereocentre(smiles, parts):
            continue  # an asymmetric catalyst for a centre the product does not have
        mapped_text = mapped.get(text, ("", ()))[0]
        broken = _broken_from_mapped(mapped_text, target) if mapped_text else frozenset()
        results[parts] = TemplateOutcome(template_id, parts, broken, mapped_text)
    return list(results.values())


def apply_named_template(template_id: str, smiles: str) -> list[list[str]]:
    """Unique canonical precursor sets (each sorted) from applying one named template to ``smiles``."""
    return [list(o.precursors) for o in run_named_template(template_id, smiles)]


def apply_all_named_templates(smiles: str, *, kinds: Iterable[str] | None = None) -> list[TemplateOutcome]:
    """Run every template (optionally only some kinds) whose product pattern matches ``smiles``."""
    from molx_agent.chem.template_scan import matching_sites

    wanted = set(kinds) if kinds else None
    out: list[TemplateOutcome] = []
    for site, _matches in matching_sites(smiles):
        if wanted and site.template.kind not in wanted:
            continue
        out.extend(run_named_template(site.template.id, smiles))
    return out


def incompatible_groups_present(
    mol: Chem.Mol, template: NamedTemplate, exclude_atoms: Iterable[int] = ()
) -> list[str]:
    """Incompatible groups of ``template`` found in ``mol`` outside ``exclude_atoms`` (the reaction site)."""
    skip = set(exclude_atoms)
    found = []
    patterns = group_patterns()
    for name in template.incompatible_groups:
        patt = patterns.get(name)
        if patt is None:
            continue
        for match in mol.GetSubstructMatches(patt, maxMatches=50):
            if not skip.intersection(match):
                found.append(name)
                break
    return found


__all__ = [
    "KINDS",
    "NamedTemplate",
    "TemplateOutcome",
    "TemplateSite",
    "activating_templates",
    "apply_all_named_templates",
    "apply_named_template",
    "get_template",
    "group_patterns",
    "incompatible_groups_present",
    "load_named_templates",
    "resolve_template_ids",
    "run_named_template",
    "template_sites",
    "template_name_zh",
]
