"""Small I/O helpers shared by every layer: atomic writes and JSON encoding.

Every file the product writes (sessions, reports, cleaned data) goes through
:func:`atomic_write_text` / :func:`atomic_write_bytes` so a crash never leaves a
half-written file: the content is written to a temporary file in the same
directory, flushed, fsynced and renamed over the destination.
"""

from __future__ import annotations

import json
import os
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (temp file + fsync + rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_current_umask())  # mkstemp makes 0600; honour the umask like open()
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def atomic_write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` atomically."""
    return atomic_write_bytes(path, text.encode(encoding))


def to_jsonable(obj: Any) -> Any:
    """Convert dataclasses, pydantic models, numpy scalars, paths and sets to JSON types."""
    if obj is None or isinstance(obj, (str, bool, int)):
        return obj
    if isinstance(obj, float):
        return obj if obj == obj and obj not in (float("inf"), float("-inf")) else None
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, datetime):
        return obj.isoformat()
    if hasattr(obj, "to_dict"):
        return to_jsonable(obj.to_dict())
    if hasattr(obj, "model_dump"):
        return to_jsonable(obj.model_dump())
    if hasattr(obj, "__dataclass_fields__"):
        from dataclasses import asdict

        return to_jsonable(asdict(obj))
    if hasattr(obj, "item"):  # numpy scalar
        return to_jsonable(obj.item())
    if hasattr(obj, "tolist"):  # numpy array
        return to_jsonable(obj.tolist())
    return str(obj)


def dumps(obj: Any, indent: int | None = 2) -> str:
    """JSON-encode anything :func:`to_jsonable` understands (UTF-8, no ASCII escaping)."""
    return json.dumps(to_jsonable(obj), indent=indent, ensure_ascii=False)


def atomic_write_json(path: str | os.PathLike[str], obj: Any, indent: int | None = 2) -> Path:
    return atomic_write_text(path, dumps(obj, indent=indent) + "\n")


def timestamped_dir(base: str | os.PathLike[str], name: str = "") -> Path:
    """Create and return ``base/YYYYMMDD_HHMMSS[_name]`` (suffixing ``_2``, ``_3`` if taken)."""
    stamp = datetime.now().strftime("%Y%m%d_%H%M%S")
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in name).strip("_")[:60]
    stem = f"{stamp}_{safe}" if safe else stamp
    base = Path(base)
    candidate = base / stem
    i = 2
    while candidate.exists():
        candidate = base / f"{stem}_{i}"
        i += 1
    candidate.mkdir(parents=True)
    return candidate


__all__ = [
    "atomic_write_bytes",
    "atomic_write_text",
    "atomic_write_json",
    "to_jsonable",
    "dumps",
    "timestamped_dir",
]
