#!/usr/bin/env python
"""Build the packaged retrosynthesis template library from the USPTO-50K training reactions (and PaRoutes).

Reads ``uspto50k/train_mapped.csv.gz`` (RXNMapper-mapped training reactions) and the multi-step exclusion list
``multistep/exclude_product_inchikeys.txt.gz``.  With ``--paroutes`` it also learns from the mapped reactions of
the PaRoutes n1/n5 reference routes kept by ``scripts/paroutes_reactions.py::training_reactions`` (no patent and
no product of a reported multi-step benchmark or of the USPTO-50K validation/test splits; those splits are read
only to know what to leave out).

For every training reaction whose product InChIKey is not excluded:
  1. extract a retro template with rdchiral's template extractor (radius 1 + special groups);
  2. keep it only if applying it to the product with rdchiral regenerates the recorded reactants
     (self-consistency check, as in RetroSim);
  3. infer its Schneider reaction class from the mapped reaction (``molx_agent.retro.reaction_class``);
  4. extract its **general** template as well: the same extractor with radius 0 (only the atoms that change, and
     the leaving groups), kept only if it also regenerates the recorded reactants.  General templates apply to
     products whose reaction centre has neighbours no training reaction had; the single-step model applies those
     of the nearest neighbours and of the general policy (``retro.policy``) when the specific ones miss.
Identical template SMARTS are merged (count = number of training reactions).  The USPTO-50K templates come first,
in the order the USPTO-50K reactions alone give (so the learned policy, trained on them, indexes the same
templates); templates only PaRoutes reactions give follow (``PAROUTES_T*`` ids), and the index rows of PaRoutes
reactions follow the USPTO-50K ones (``source`` 1; ``train_row`` is then the row in the kept PaRoutes list).

Writes into ``--out-dir`` (default ``molx_agent/data``):
  * ``retro_templates.json.gz`` — metadata and templates ``[{id, retro_smarts, count, reaction_class,
    class_counts, necessary_reagent, intra_only, dimer_only}]``, sorted by count then SMARTS, and the general
    templates ``general_templates: [{id, retro_smarts, count}]`` (``GENERAL_T*``, by count then SMARTS);
  * ``retro_train_index.npz`` — per kept training reaction: the template index, its general template's index
    (``general_idx``, -1 when the radius-0 template does not regenerate the reactants), its source (0 USPTO-50K,
    1 PaRoutes), and the on-bits of the product and reactant Morgan fingerprints (CSR layout, uint16), for
    nearest-neighbour ranking.
Both files are byte-for-byte reproducible (fixed seeds, sorted output, zero timestamps).

Usage:
    nice -n 10 uv run python scripts/build_templates.py --paroutes [--limit N] [--workers 2] [--log FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import gzip
import io
import json
import logging
import multiprocessing as mp
import os
import signal
import sys
import time
import zipfile
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from molx_agent.io_utils import atomic_write_bytes  # noqa: E402
from molx_agent.retro.templates_db import (  # noqa: E402
    FINGERPRINT,
    INDEX_FILE,
    TEMPLATES_FILE,
    fingerprint_bits,
)

SHARED = REPO.parent / "shared" / "data"
DEFAULT_TRAIN = SHARED / "uspto50k" / "train_mapped.csv.gz"
DEFAULT_EXCLUDE = SHARED / "multistep" / "exclude_product_inchikeys.txt.gz"
PER_REACTION_TIMEOUT_S = 20

log = logging.getLogger("build_templates")


class _Timeout(Exception):
    pass


def _alarm(_signum, _frame):  # pragma: no cover - only on pathological reactions
    raise _Timeout()


def _canonical_set(smiles: str) -> str | None:
    from rdkit import Chem

    parts = []
    for s in smiles.split("."):
        mol = Chem.MolFromSmiles(s)
        if mol is None:
            return None
        for a in mol.GetAtoms():
            a.SetAtomMapNum(0)
        parts.append(Chem.MolToSmiles(mol))
    return ".".join(sorted(parts))


def _extract(r_map: str, p_map: str, index: int, *, radius: int = 1) -> dict | None:
    """rdchiral's template of one mapped reaction with the reactant fragments grown ``radius`` bonds (1, the
    extractor's own choice, gives the specific template; 0 the general one).  Seeded: the extractor shuffles with
    numpy's global RNG.  Runs in a worker process (the extractor's module function is swapped for the call)."""
    from rdchiral import template_extractor as te

    original = te.get_fragments_for_changed_atoms

    def fragments(mols, changed_atom_tags, radius=0, category="reactants", expansion=()):
        grown = reactant_radius if category == "reactants" else radius
        return original(mols, changed_atom_tags, radius=grown, category=category, expansion=list(expansion))

    reactant_radius = radius
    np.random.seed(index)
    te.get_fragments_for_changed_atoms = fragments
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            return te.extract_from_reaction({"reactants": r_map, "products": p_map, "_id": index})
    finally:
        te.get_fragments_for_changed_atoms = original


def _process(job: tuple[int, str, str, str]) -> dict:
    """Extract and check the template of one training reaction (runs in a worker)."""
    index, reactants_smiles, product_smiles, mapped = job
    from rdchiral.main import rdchiralReactants, rdchiralReaction, rdchiralRun
    from rdkit import RDLogger

    from molx_agent.retro.reaction_class import infer_reaction_class

    RDLogger.DisableLog("rdApp.*")
    out: dict = {"index": index, "status": "ok"}
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(PER_REACTION_TIMEOUT_S)
    try:
        r_map, _, p_map = mapped.split(">")
        tpl = _extract(r_map, p_map, index)
        if not tpl or "reaction_smarts" not in tpl:
            out["status"] = "no_template"
            return out
        smarts = tpl["reaction_smarts"]
        truth = _canonical_set(reactants_smiles)
        rxn = rdchiralReaction(smarts)
        outcomes = rdchiralRun(rxn, rdchiralReactants(product_smiles), combine_enantiomers=False)
        canon = {_canonical_set(o) for o in outcomes}
        if truth not in canon:
            out["status"] = "not_reproduced"
            return out
        out.update(
            retro_smarts=smarts,
            necessary_reagent=tpl.get("necessary_reagent", ""),
            intra_only=bool(tpl.get("intra_only")),
            dimer_only=bool(tpl.get("dimer_only")),
            reaction_class=infer_reaction_class(mapped),
            general_smarts=None,
        )
        try:  # the general template is optional: a failure here never drops the reaction
            general = _extract(r_map, p_map, index, radius=0)
            if general and "reaction_smarts" in general:
                outcomes = rdchiralRun(rdchiralReaction(general["reaction_smarts"]),
                                       rdchiralReactants(product_smiles), combine_enantiomers=False)
                if truth in {_canonical_set(o) for o in outcomes}:
                    out["general_smarts"] = general["reaction_smarts"]
        except _Timeout:
            raise
        except Exception as exc:  # noqa: BLE001 - any RDKit/rdchiral failure: no general template
            out["general_status"] = f"error:{type(exc).__name__}"
    except _Timeout:
        out["status"] = "timeout"
    except Exception as exc:  # noqa: BLE001 - any RDKit/rdchiral failure is one dropped reaction
        out["status"] = f"error:{type(exc).__name__}"
    finally:
        signal.alarm(0)
    return out


def _inchikey(smiles: str) -> str | None:
    from rdkit import Chem

    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return None
    return Chem.MolToInchiKey(mol) or None


def read_excluded(path: Path) -> set[str]:
    """The InChIKeys of the multi-step exclusion list (``multistep/exclude_product_inchikeys.txt.gz``)."""
    with gzip.open(path, "rt") as fh:
        return {line.strip() for line in fh if line.strip()}


def library_rows(rows: list[dict], excluded: set[str]) -> tuple[dict[int, dict], Counter]:
    """The USPTO-50K training rows the library learns from, by row index (a readable product that is not in
    ``excluded``), and the number dropped per reason (``bad_product``, ``excluded_product``)."""
    kept: dict[int, dict] = {}
    stats: Counter = Counter()
    for i, row in enumerate(rows):
        key = _inchikey(row["product"])
        if key is None:
            stats["bad_product"] += 1
        elif key in excluded:
            stats["excluded_product"] += 1
        else:
            kept[i] = row
    return kept, stats


def _npy_bytes(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=False)
    return buf.getvalue()


def write_npz_deterministic(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """An ``.npz`` (readable by ``np.load``) with fixed timestamps, so rebuilding gives identical bytes."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(arrays):
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, _npy_bytes(arrays[name]), compresslevel=9)
    atomic_write_bytes(path, buf.getvalue())


def _csr(bit_lists: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    offsets = np.zeros(len(bit_lists) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(b) for b in bit_lists])
    flat = np.fromiter((x for b in bit_lists for x in b), dtype=np.uint16, count=int(offsets[-1]))
    return offsets.astype(np.uint32), flat


def build(train: Path, exclude: Path, out_dir: Path, *, limit: int | None, workers: int,
          extra: list | None = None, extra_rule: dict | None = None) -> dict:
    """Build both library files into ``out_dir``.  ``extra``: PaRoutes reactions to learn from as well
    (``scripts/paroutes_reactions.RouteReaction`` records, already filtered), appended after USPTO-50K."""
    t0 = time.time()
    extra = list(extra or ())
    excluded = read_excluded(exclude)
    log.info("excluded product InChIKeys: %d", len(excluded))
    with gzip.open(train, "rt", newline="") as fh:
        rows = list(csv.DictReader(fh))
    if limit:
        rows = rows[:limit]
    log.info("training reactions read: %d", len(rows))

    kept_rows, stats = library_rows(rows, excluded)
    jobs = [(i, row["reactants"], row["product"], row["mapped_rxn"]) for i, row in kept_rows.items()]
    log.info("after exclusion: %d reactions (%d excluded)", len(jobs), stats["excluded_product"])
    offset = len(rows)  # PaRoutes jobs are numbered after every USPTO-50K row (unique seeds and indices)
    for i, rec in enumerate(extra):
        jobs.append((offset + i, rec.reactants, rec.product, rec.mapped))
    if extra:
        log.info("PaRoutes reactions: %d", len(extra))

    results: list[dict] = []
    if workers > 1:
        ctx = mp.get_context("fork")
        with ctx.Pool(workers) as pool:
            for n, res in enumerate(pool.imap(_process, jobs, chunksize=32), 1):
                results.append(res)
                if n % 1000 == 0:
                    log.info("extracted %d/%d (%.0f s)", n, len(jobs), time.time() - t0)
    else:
        for n, job in enumerate(jobs, 1):
            results.append(_process(job))
            if n % 1000 == 0:
                log.info("extracted %d/%d (%.0f s)", n, len(jobs), time.time() - t0)

    by_smarts: dict[str, dict] = {}
    class_counts: dict[str, Counter] = defaultdict(Counter)
    usable = []
    first_count: Counter = Counter()  # per template: USPTO-50K reactions only (fixes the first block's order)
    for res in results:
        from_extra = res["index"] >= offset
        stats[("paroutes_" if from_extra else "") + res["status"]] += 1
        if res["status"] != "ok":
            continue
        smarts = res["retro_smarts"]
        if not from_extra:
            first_count[smarts] += 1
        entry = by_smarts.setdefault(
            smarts,
            {
                "retro_smarts": smarts,
                "count": 0,
                "necessary_reagent": res["necessary_reagent"],
                "intra_only": res["intra_only"],
                "dimer_only": res["dimer_only"],
            },
        )
        entry["count"] += 1
        class_counts[smarts][res["reaction_class"] or 0] += 1
        usable.append(res)

    # USPTO-50K templates in their own order (by their USPTO-50K count), then the PaRoutes-only ones
    ordered = sorted((e for e in by_smarts.values() if first_count[e["retro_smarts"]]),
                     key=lambda e: (-first_count[e["retro_smarts"]], e["retro_smarts"]))
    n_first = len(ordered)
    ordered += sorted((e for e in by_smarts.values() if not first_count[e["retro_smarts"]]),
                      key=lambda e: (-e["count"], e["retro_smarts"]))
    templates = []
    smarts_to_idx = {}
    for idx, entry in enumerate(ordered):
        counts = class_counts[entry["retro_smarts"]]
        known = {c: n for c, n in counts.items() if c}
        cls = min(known, key=lambda c: (-known[c], c)) if known else None
        templates.append(
            {
                "id": f"USPTO50K_T{idx + 1:05d}" if idx < n_first else f"PAROUTES_T{idx - n_first + 1:05d}",
                "retro_smarts": entry["retro_smarts"],
                "count": entry["count"],
                "reaction_class": cls,
                "class_counts": {str(c): n for c, n in sorted(counts.items())},
                "necessary_reagent": entry["necessary_reagent"],
                "intra_only": entry["intra_only"],
                "dimer_only": entry["dimer_only"],
            }
        )
        smarts_to_idx[entry["retro_smarts"]] = idx

    general_count = Counter(res["general_smarts"] for res in usable if res.get("general_smarts"))
    general = sorted(general_count, key=lambda sm: (-general_count[sm], sm))
    general_to_idx = {sm: i for i, sm in enumerate(general)}
    general_templates = [{"id": f"GENERAL_T{i + 1:05d}", "retro_smarts": sm, "count": general_count[sm]}
                         for i, sm in enumerate(general)]

    usable.sort(key=lambda r: r["index"])
    prod_bits, reac_bits, tpl_idx, row_idx, source, gen_idx = [], [], [], [], [], []
    for res in usable:
        if res["index"] >= offset:
            rec = extra[res["index"] - offset]
            product, reactants, row, src = rec.product, rec.reactants, res["index"] - offset, 1
        else:
            row_data = kept_rows[res["index"]]
            product, reactants, row, src = row_data["product"], row_data["reactants"], res["index"], 0
        prod_bits.append(fingerprint_bits(product))
        reac_bits.append(fingerprint_bits(reactants))
        tpl_idx.append(smarts_to_idx[res["retro_smarts"]])
        gen_idx.append(general_to_idx.get(res.get("general_smarts") or "", -1))
        row_idx.append(row)
        source.append(src)
    p_off, p_flat = _csr(prod_bits)
    r_off, r_flat = _csr(reac_bits)

    meta = {
        "format": "molx-agent retro templates v1",
        "source": "USPTO-50K training reactions (train_mapped.csv.gz, RXNMapper 0.4.3 maps)",
        "extractor": "rdchiral.template_extractor.extract_from_reaction (radius 1, special groups)",
        "class_source": "rule-based inference from the mapped reaction centre (molx_agent.retro.reaction_class)",
        "fingerprint": FINGERPRINT,
        "n_reactions_read": len(rows),
        "n_reactions_excluded": stats["excluded_product"],
        "n_reactions_used": len(usable),
        "n_templates": len(templates),
        "stats": dict(sorted(stats.items())),
        "templates": templates,
        "general_extractor": "the same extractor with the reactant fragments grown 0 bonds (radius 0); kept when"
                             " it regenerates the recorded reactants",
        "n_general_templates": len(general_templates),
        "n_reactions_without_general": gen_idx.count(-1),
        "general_templates": general_templates,
    }
    arrays = {
        "template_idx": np.asarray(tpl_idx, dtype=np.int32),
        "general_idx": np.asarray(gen_idx, dtype=np.int32),
        "train_row": np.asarray(row_idx, dtype=np.int32),
        "product_offsets": p_off,
        "product_bits": p_flat,
        "reactant_offsets": r_off,
        "reactant_bits": r_flat,
    }
    if extra:  # a USPTO-50K-only build writes exactly the files it wrote before PaRoutes was added
        meta["source"] += " + PaRoutes n1/n5 route reactions (scripts/paroutes_reactions.py library rule)"
        meta["n_templates_uspto50k"] = n_first
        meta["sources"] = {"uspto50k": source.count(0), "paroutes": source.count(1)}
        meta["paroutes_rule"] = dict(extra_rule or {})
        arrays["source"] = np.asarray(source, dtype=np.uint8)
    out_dir.mkdir(parents=True, exist_ok=True)
    payload = json.dumps(meta, sort_keys=True, separators=(",", ":")).encode()
    atomic_write_bytes(out_dir / TEMPLATES_FILE, gzip.compress(payload, compresslevel=9, mtime=0))
    os.chmod(out_dir / TEMPLATES_FILE, 0o644)
    write_npz_deterministic(out_dir / INDEX_FILE, arrays)
    os.chmod(out_dir / INDEX_FILE, 0o644)
    log.info("wrote %d templates from %d reactions in %.0f s; stats %s", len(templates), len(usable),
             time.time() - t0, dict(stats))
    return meta


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", type=Path, default=DEFAULT_TRAIN)
    ap.add_argument("--exclude", type=Path, default=DEFAULT_EXCLUDE)
    ap.add_argument("--out-dir", type=Path, default=REPO / "molx_agent" / "data")
    ap.add_argument("--limit", type=int, default=None, help="use only the first N training reactions")
    ap.add_argument("--workers", type=int, default=2, help="worker processes (at most 2)")
    ap.add_argument("--log", type=Path, default=None, help="also log progress to this file")
    ap.add_argument("--paroutes", action="store_true",
                    help="also learn from the PaRoutes n1/n5 route reactions (scripts/paroutes_reactions.py rule)")
    ap.add_argument("--paroutes-limit", type=int, default=None, help="use only the first N kept PaRoutes reactions")
    args = ap.parse_args(argv)
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if args.log:
        handlers.append(logging.FileHandler(args.log))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", handlers=handlers)
    from scripts.paroutes_reactions import LIBRARY_RULE_INPUTS, library_training_reactions

    inputs = [args.train, args.exclude]
    if args.paroutes:
        inputs += LIBRARY_RULE_INPUTS
    for path in inputs:
        if not path.is_file():
            log.error("missing input file: %s", path)
            return 2
    try:
        os.nice(10)
    except OSError:
        pass
    extra, rule = None, None
    if args.paroutes:
        extra, rule = library_training_reactions()
        log.info("PaRoutes library rule: %s", rule)
        if args.paroutes_limit is not None:
            extra = extra[: args.paroutes_limit]
    build(args.train, args.exclude, args.out_dir, limit=args.limit, workers=max(1, min(2, args.workers)),
          extra=extra, extra_rule=rule if extra else None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
