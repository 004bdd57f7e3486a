#!/usr/bin/env python
"""Train the learned template-relevance policy (NeuralSym-style) of the single-step model.

Input: the packaged template library built from the USPTO-50K *training* reactions only
(``molx_agent/data/retro_train_index.npz``: per training reaction, the on-bits of its product's Morgan
fingerprint and the index of its template; ``retro_templates.json.gz`` for the number of templates).
Nothing else is read: no validation, test or benchmark file.

Model: the product fingerprint (2048 bits, radius 2, the library's own fingerprint) -> a hidden layer of
``--hidden`` ELU units (an embedding-bag sum over the on-bits, so the input layer costs one gather per
on-bit) -> dropout -> one logit per template; a softmax over the templates gives their relevance.  Trained
with cross-entropy (the product's recorded template is the label), Adam, fixed seed, one thread, so a
re-run gives the same weights.

``--holdout F`` keeps a fraction of the training products (grouped by fingerprint) out and reports the
template top-k accuracy on them after each epoch (to choose ``--epochs``).  The shipped model is the second
command below with ``--holdout 0.05 --epochs 12`` (trained on 95 % of the training reactions; retraining on all
of them with ``--holdout 0`` was not done for lack of time); a re-run writes a byte-identical file.

``--target general`` trains the **general policy** instead: the same network with one output per general (radius-0)
template of the library (``general_templates``), the label being each reaction's general template (reactions
without one are left out); it writes ``retro_general_policy.npz``.  The shipped one:
``nice -n 5 /work/venv-train/bin/python scripts/train_template_policy.py --target general --holdout 0.05 --epochs 10
--hidden 512 --threads 1`` (about 2 minutes).

Writes ``molx_agent/data/retro_policy.npz`` (float16 weights, float32 biases, meta JSON, and reference
logits of a few training products computed by torch with the float16-rounded weights, which the tests
compare with the numpy inference in ``molx_agent.retro.policy``).

Runs in a separate training environment with torch (build time only; never a run-time dependency)::

    python3 -m venv /work/venv-train && /work/venv-train/bin/pip install -r scripts/requirements-train.txt
    nice -n 19 /work/venv-train/bin/python scripts/train_template_policy.py --holdout 0.05 --epochs 12 --hidden 512
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import logging
import os
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "molx_agent" / "data"
POLICY_FILE = "retro_policy.npz"
GENERAL_POLICY_FILE = "retro_general_policy.npz"
FP_SIZE = 2048
log = logging.getLogger("train_policy")


def load_training(data_dir: Path, target: str = "templates") -> tuple[list[np.ndarray], np.ndarray, int, dict]:
    """Fingerprints (on-bits) and labels of the library's training reactions.

    ``target``: ``templates`` (label = the reaction's template, every library template an output) or ``general``
    (label = its general radius-0 template; reactions without one are left out).
    """
    with np.load(data_dir / "retro_train_index.npz", allow_pickle=False) as npz:
        offsets = npz["product_offsets"].astype(np.int64)
        bits = npz["product_bits"].astype(np.int64)
        key = "template_idx" if target == "templates" else "general_idx"
        if key not in npz.files:
            raise SystemExit(f"the template library has no {key!r}: rebuild it with scripts/build_templates.py")
        labels = npz[key].astype(np.int64)
    with gzip.open(data_dir / "retro_templates.json.gz", "rb") as fh:
        meta = json.loads(fh.read())
    n_templates = len(meta["templates"] if target == "templates" else meta["general_templates"])
    fps = [bits[offsets[i]:offsets[i + 1]] for i in range(len(offsets) - 1)]
    keep = np.flatnonzero(labels >= 0)
    return [fps[i] for i in keep], labels[keep], n_templates, meta


def split_holdout(fps: list[np.ndarray], fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Train / held-out row indices; rows with the same fingerprint stay on one side."""
    n = len(fps)
    if fraction <= 0:
        return np.arange(n), np.zeros(0, dtype=np.int64)
    keys = [fp.tobytes() for fp in fps]
    uniq = sorted(set(keys))
    rng = np.random.default_rng(seed)
    held = set(rng.choice(len(uniq), size=int(round(fraction * len(uniq))), replace=False).tolist())
    held_keys = {uniq[i] for i in held}
    is_held = np.array([k in held_keys for k in keys])
    return np.flatnonzero(~is_held), np.flatnonzero(is_held)


def numpy_logits(weights: dict[str, np.ndarray], bits: np.ndarray) -> np.ndarray:
    """The run-time inference (``molx_agent.retro.policy``), repeated here for the self-check."""
    return numpy_logits_batch(weights, [bits])[0]


def numpy_logits_batch(weights: dict[str, np.ndarray], rows: list[np.ndarray]) -> np.ndarray:
    """:func:`numpy_logits` of several products (their on-bits), one row each."""
    h = np.stack([weights["w1"][bits].astype(np.float32).sum(axis=0) for bits in rows]) + weights["b1"]
    h = np.where(h > 0, h, np.expm1(np.minimum(h, 0)))
    return h @ weights["w2"].astype(np.float32) + weights["b2"]


def write_npz_deterministic(path: Path, arrays: dict[str, np.ndarray]) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(arrays):
            arr_buf = io.BytesIO()
            np.save(arr_buf, arrays[name], allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, arr_buf.getvalue(), compresslevel=9)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "wb") as fh:
        fh.write(buf.getvalue())
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def read_member(path: Path) -> tuple[dict[str, np.ndarray], dict]:
    """A fitted policy's arrays (as stored) and its meta."""
    with np.load(path, allow_pickle=False) as npz:
        arrays = {name: npz[name] for name in npz.files}
    return arrays, json.loads(arrays.pop("meta_json").tobytes().decode())


def held_out_topk(weights: dict[str, np.ndarray], fps: list[np.ndarray], labels: np.ndarray,
                  rows: np.ndarray) -> dict[str, float]:
    """Template top-k of the numpy inference on ``rows`` (the trainer's own measure)."""
    ranks = []
    for s in range(0, len(rows), 512):  # a batch of products at a time
        batch = rows[s:s + 512]
        z = numpy_logits_batch(weights, [fps[i] for i in batch.tolist()])
        true = z[np.arange(len(batch)), labels[batch]]
        ranks.append((z > true[:, None]).sum(axis=1) + 1)
    ranks = np.concatenate(ranks)
    return {f"top{k}": round(100.0 * float(np.mean(ranks <= k)), 1) for k in (1, 5, 10, 50, 100)}


def ensemble(members: list[Path], out: Path | None, data_dir: Path) -> int:
    """Average fitted policies into one network of the same format: the hidden layers side by side and the output
    layer divided by their number, so its logits are the members' mean logits (a geometric mean of their
    probabilities, renormalised by the softmax).  The members must share target and held-out split; the held-out
    template top-k of the average is measured and stored.  Byte-identical on re-run."""
    loaded = [read_member(Path(m)) for m in members]
    metas = [meta for _, meta in loaded]
    target = metas[0].get("target", "templates")
    split = [(m.get("target", "templates"), m["n_templates"], m["hyperparameters"]["holdout"],
              m["hyperparameters"].get("holdout_seed", m["hyperparameters"]["seed"])) for m in metas]
    if len(set(split)) != 1:
        raise SystemExit(f"ensemble members differ in target, templates or held-out split: {split}")
    k = len(loaded)
    parts = [arrays for arrays, _ in loaded]
    weights = {
        "w1": np.concatenate([a["w1"] for a in parts], axis=1),
        "b1": np.concatenate([a["b1"] for a in parts]).astype(np.float32),
        "w2": np.concatenate([(a["w2"].astype(np.float32) / k).astype(np.float16) for a in parts], axis=0),
        "b2": (np.sum([a["b2"].astype(np.float64) for a in parts], axis=0) / k).astype(np.float32),
    }
    fps, labels, n_templates, lib_meta = load_training(data_dir, target)
    if n_templates != split[0][1]:
        raise SystemExit(f"the members have {split[0][1]} outputs, the library {n_templates} templates")
    # reference logits: the members' mean logits on the first member's reference products (the test compares the
    # merged network's run-time inference with them)
    check_bits, check_offsets = parts[0]["check_bits"].astype(np.int64), parts[0]["check_offsets"]
    rows = [check_bits[check_offsets[i]:check_offsets[i + 1]] for i in range(len(check_offsets) - 1)]
    check_logits = np.array([np.mean([numpy_logits(a, bits) for a in parts], axis=0) for bits in rows],
                            dtype=np.float32)
    for bits, ref in zip(rows, check_logits, strict=True):
        diff = float(np.abs(numpy_logits(weights, bits) - ref).max())
        if diff > 1e-2:
            log.error("the merged network differs from the members' mean logits by %.2e", diff)
            return 1
    _, held_idx = split_holdout(fps, split[0][2], split[0][3])
    held = held_out_topk(weights, fps, labels, held_idx) if len(held_idx) else {}
    log.info("ensemble of %d, held-out template top-k (%d products): %s", k, len(held_idx), held)
    hidden = sum(int(a["b1"].shape[0]) for a in parts)
    meta = {
        "format": "molx-agent template policy v1",
        "architecture": f"morgan2 2048 bits -> {hidden} ELU ({k} members side by side) -> {n_templates} templates"
                        " (softmax of the members' mean logits)",
        "templates_file": "retro_templates.json.gz",
        "target": target,
        "n_templates": n_templates,
        "template_library_reactions": lib_meta.get("n_reactions_used"),
        "fingerprint": lib_meta.get("fingerprint"),
        "trained_on": metas[0].get("trained_on"),
        "n_train": metas[0].get("n_train"),
        "n_held_out": int(len(held_idx)),
        "ensemble_of": [{"hyperparameters": m["hyperparameters"], "history": m["history"], "torch": m.get("torch")}
                        for m in metas],
        "held_out_template_topk": held,
    }
    arrays = dict(weights)
    arrays["meta_json"] = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), dtype=np.uint8)
    arrays["check_bits"] = parts[0]["check_bits"]
    arrays["check_offsets"] = check_offsets
    arrays["check_logits"] = check_logits
    if out is None:
        out = data_dir / (POLICY_FILE if target == "templates" else GENERAL_POLICY_FILE)
    write_npz_deterministic(out, arrays)
    log.info("wrote %s (%.1f MB)", out, out.stat().st_size / 1e6)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, default=DATA)
    ap.add_argument("--out", type=Path, default=None,
                    help=f"default: {POLICY_FILE}, or {GENERAL_POLICY_FILE} with --target general, in the data folder")
    ap.add_argument("--target", choices=("templates", "general"), default="templates",
                    help="what the policy ranks: the library's templates, or its general (radius-0) templates")
    ap.add_argument("--hidden", type=int, default=512)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--dropout", type=float, default=0.3)
    ap.add_argument("--weight-decay", type=float, default=1e-5)
    ap.add_argument("--label-smoothing", type=float, default=0.0,
                    help="cross-entropy label smoothing (0: none, the shipped policy's setting)")
    ap.add_argument("--holdout", type=float, default=0.0, help="fraction of training products held out")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--holdout-seed", type=int, default=None,
                    help="seed of the held-out split (default: --seed); ensemble members share one held-out set")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--log", type=Path, default=None)
    ap.add_argument("--ensemble", type=Path, nargs="+", default=None, metavar="MEMBER",
                    help="no training: average these fitted policies (same target, same held-out split) into one "
                         "network of the same format, numpy only, and write it to --out")
    args = ap.parse_args(argv)
    if args.ensemble:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
        return ensemble(args.ensemble, args.out, args.data_dir)
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if args.log:
        handlers.append(logging.FileHandler(args.log))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", handlers=handlers)

    import torch
    from torch import nn

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    t0 = time.time()
    if args.out is None:
        args.out = args.data_dir / (POLICY_FILE if args.target == "templates" else GENERAL_POLICY_FILE)
    fps, labels, n_templates, lib_meta = load_training(args.data_dir, args.target)
    holdout_seed = args.seed if args.holdout_seed is None else args.holdout_seed
    train_idx, held_idx = split_holdout(fps, args.holdout, holdout_seed)
    log.info("%d training reactions, %d templates; %d train / %d held out", len(fps), n_templates,
             len(train_idx), len(held_idx))

    class Policy(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inp = nn.EmbeddingBag(FP_SIZE, args.hidden, mode="sum")
            self.b1 = nn.Parameter(torch.zeros(args.hidden))
            self.drop = nn.Dropout(args.dropout)
            self.out = nn.Linear(args.hidden, n_templates)

        def forward(self, flat: torch.Tensor, offs: torch.Tensor) -> torch.Tensor:
            h = nn.functional.elu(self.inp(flat, offs) + self.b1)
            return self.out(self.drop(h))

    model = Policy()
    with torch.no_grad():
        model.inp.weight.normal_(0.0, 1.0 / np.sqrt(50.0))  # about 50 on-bits per product
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)

    def batch(rows: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        parts = [fps[i] for i in rows]
        offs = np.zeros(len(parts), dtype=np.int64)
        offs[1:] = np.cumsum([len(p) for p in parts[:-1]])
        return torch.from_numpy(np.concatenate(parts)), torch.from_numpy(offs)

    def evaluate(rows: np.ndarray) -> dict[str, float]:
        model.eval()
        ranks = []
        with torch.no_grad():
            for s in range(0, len(rows), 512):
                r = rows[s:s + 512]
                logits = model(*batch(r))
                y = torch.from_numpy(labels[r])
                true = logits.gather(1, y[:, None])
                ranks.append((logits > true).sum(dim=1).numpy() + 1)
        rk = np.concatenate(ranks)
        return {f"top{k}": round(100.0 * float(np.mean(rk <= k)), 1) for k in (1, 5, 10, 50, 100)}

    rng = np.random.default_rng(args.seed)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=args.label_smoothing)
    history = []
    for epoch in range(1, args.epochs + 1):
        model.train()
        order = train_idx[rng.permutation(len(train_idx))]
        total = 0.0
        for s in range(0, len(order), args.batch):
            r = order[s:s + args.batch]
            logits = model(*batch(r))
            loss = loss_fn(logits, torch.from_numpy(labels[r]))
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(r)
        entry = {"epoch": epoch, "train_loss": round(total / len(order), 4)}
        if len(held_idx):
            entry["held_out_template_topk"] = evaluate(held_idx)
        history.append(entry)
        log.info("%s (%.0f s)", entry, time.time() - t0)

    model.eval()
    weights = {
        "w1": model.inp.weight.detach().numpy().astype(np.float16),
        "b1": model.b1.detach().numpy().astype(np.float32),
        "w2": model.out.weight.detach().numpy().T.astype(np.float16).copy(),
        "b2": model.out.bias.detach().numpy().astype(np.float32),
    }
    # reference logits: torch with the float16-rounded weights, on a few training products
    with torch.no_grad():
        model.inp.weight.copy_(torch.from_numpy(weights["w1"].astype(np.float32)))
        model.out.weight.copy_(torch.from_numpy(weights["w2"].astype(np.float32).T))
        check_rows = np.arange(0, len(fps), max(1, len(fps) // 5))[:5]
        check_logits = model(*batch(check_rows)).numpy().astype(np.float32)
    for j, i in enumerate(check_rows):
        diff = float(np.abs(numpy_logits(weights, fps[i]) - check_logits[j]).max())
        if diff > 1e-3:
            log.error("numpy inference differs from torch by %.2e", diff)
            return 1
    check_offsets = np.zeros(len(check_rows) + 1, dtype=np.int64)
    check_offsets[1:] = np.cumsum([len(fps[i]) for i in check_rows])
    meta = {
        "format": "molx-agent template policy v1",
        "architecture": f"morgan2 2048 bits -> {args.hidden} ELU -> {n_templates} templates (softmax)",
        "templates_file": "retro_templates.json.gz",
        "target": args.target,
        "n_templates": n_templates,
        "template_library_reactions": lib_meta.get("n_reactions_used"),
        "fingerprint": lib_meta.get("fingerprint"),
        "trained_on": "the template library's training reactions: USPTO-50K training split and the PaRoutes route"
                      " reactions its rule keeps (no USPTO-50K validation/test row, no reported benchmark's)",
        "n_train": int(len(train_idx)),
        "n_held_out": int(len(held_idx)),
        # label smoothing is recorded only when used, so the shipped command still writes a byte-identical file
        "hyperparameters": {k: getattr(args, k) for k in
                            ("hidden", "epochs", "batch", "lr", "dropout", "weight_decay", "holdout", "seed")
                            + (("label_smoothing",) if args.label_smoothing else ())
                            + (("holdout_seed",) if args.holdout_seed is not None else ())},
        "history": history,
        "torch": torch.__version__,
    }
    arrays = dict(weights)
    arrays["meta_json"] = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), dtype=np.uint8)
    arrays["check_bits"] = np.concatenate([fps[i] for i in check_rows]).astype(np.int32)
    arrays["check_offsets"] = check_offsets
    arrays["check_logits"] = check_logits
    write_npz_deterministic(args.out, arrays)
    log.info("wrote %s (%.1f MB) in %.0f s", args.out, args.out.stat().st_size / 1e6, time.time() - t0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
