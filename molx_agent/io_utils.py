"""Small I/O helpers shared by every layer: atomic writes, JSON encoding, reading input files, locks.

Every file the product writes (sessions, reports, cleaned data) goes through
:func:`atomic_write_text` / :func:`atomic_write_bytes` so a crash never leaves a
half-written file: the content is written to a temporary file in the same
directory, flushed, fsynced and renamed over the destination.  An error names the
destination, never the temporary file.

Input files from outside (argument files, task files, data files) are read with
:func:`read_input_text`, which names the real problem of a bad file: a directory, a
missing file, a file over the size limit, gzip/zip/binary data, or text that is not
UTF-8 (UTF-16 with a byte-order mark is decoded).  :func:`file_lock` serialises
read-modify-write cycles on a file shared by several processes (bounded wait).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import tempfile
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _write_error(path: Path, exc: OSError) -> OSError:
    """The same kind of OS error, about ``path`` (the destination) rather than the temporary file."""
    return type(exc)(exc.errno, exc.strerror or str(exc), str(path))


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (temp file + fsync + rename).

    Errors are ``OSError`` subclasses naming ``path``: ``IsADirectoryError`` when ``path`` is a directory,
    ``NotADirectoryError`` / ``FileExistsError`` when a parent is a file, ``PermissionError``, ...
    """
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # a parent exists as a file
        raise NotADirectoryError(errno.ENOTDIR, "a parent of the destination is a file, not a directory",
                                 str(path)) from None
    except OSError as exc:
        raise _write_error(path, exc) from None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise _write_error(path, exc) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_current_umask())  # mkstemp makes 0600; honour the umask like open()
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(exc, OSError):
            raise _write_error(path, exc) from None
        raise
    return path


def atomic_write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` atomically."""
    return atomic_write_bytes(path, text.encode(encoding))


def to_jsonable(obj: Any, *, strict: bool = False) -> Any:
    """Plain JSON types: numpy scalars and arrays, paths, enums, dates, sets, dataclasses and pydantic models are
    converted (numpy ``float64`` is a ``float`` subclass that checkpoint serialisers reject: it becomes a real
    ``float``); NaN and infinities become ``None``.  Anything else becomes its ``str`` or, with ``strict``, raises
    ``TypeError`` (the agent's state: a worker bug is reported as such instead of being stored as a string)."""
    import math
    from datetime import date
    from enum import Enum
    from pathlib import PurePath

    if obj is None or type(obj) in (str, int, bool):
        return obj
    if type(obj).__module__ == "numpy" and hasattr(obj, "tolist"):
        return to_jsonable(obj.tolist(), strict=strict)  # numpy scalars and arrays -> Python scalars and lists
    if isinstance(obj, bool):
        return bool(obj)
    if isinstance(obj, float):
        value = float(obj)
        return value if math.isfinite(value) else None
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, str):
        return str(obj)
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v, strict=strict) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [to_jsonable(v, strict=strict) for v in obj]
    if isinstance(obj, PurePath):
        return str(obj)
    if isinstance(obj, (datetime, date)):
        return obj.isoformat()
    if isinstance(obj, Enum):
        return to_jsonable(obj.value, strict=strict)
    if hasattr(obj, "to_dict"):
        return to_jsonable(obj.to_dict(), strict=strict)
    if hasattr(obj, "model_dump"):
        return to_jsonable(obj.model_dump(), strict=strict)
    if hasattr(obj, "__dataclass_fields__"):
        from dataclasses import asdict

        return to_jsonable(asdict(obj), strict=strict)
    if hasattr(obj, "item"):  # other numpy-like scalars
        return to_jsonable(obj.item(), strict=strict)
    if hasattr(obj, "tolist"):  # other array-likes
        return to_jsonable(obj.tolist(), strict=strict)
    if strict:
        raise TypeError(f"{type(obj).__name__} is not JSON data (convert it, or write it to a file and keep the path)")
    return str(obj)


def dumps(obj: Any, indent: int | None = 2) -> str:
    """JSON-encode anything :func:`to_jsonable` understands (UTF-8, no ASCII escaping)."""
    return json.dumps(to_jsonable(obj), indent=indent, ensure_ascii=False)


def atomic_write_json(path: str | os.PathLike[str], obj: Any, indent: int | None = 2) -> Path:
    return atomic_write_text(path, dumps(obj, indent=indent) + "\n")


def read_npz_with_meta(path: str | os.PathLike[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The arrays of an ``.npz`` a build script wrote and its JSON metadata (the ``meta_json`` byte array).

    Raises ``OSError``, ``ValueError`` or ``KeyError`` for an unreadable file; callers turn them into their own
    ``DataError``."""
    import numpy as np

    with np.load(path, allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    return arrays, json.loads(arrays["meta_json"].tobytes().decode())


def timestamped_dir(base: str | os.PathLike[str], name: str = "") -> Path:
    """Create and return ``base/YYYYMMDD_HHMMSS[_name]`` (suffixing ``_2``, ``_3`` if taken).

    ``DataError`` (``output_dir_is_file``, ``output_dir_unwritable``) when ``base`` cannot hold it.
    """
    stamp = datetime.now().strftime("%Y%m%d_%H%M%S")
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in name).strip("_")[:60]
    stem = f"{stamp}_{safe}" if safe else stamp
    base = ensure_output_dir(base)  # a base that is a file or unwritable: DataError naming it
    candidate = base / stem
    i = 2
    while True:
        try:
            candidate.mkdir()  # atomic: two processes in the same second get different folders
            return candidate
        except FileExistsError:
            candidate = base / f"{stem}_{i}"
            i += 1


def ensure_output_dir(path: str | os.PathLike[str], what: str = "output directory") -> Path:
    """Create ``path`` as a directory (parents too) or raise ``DataError`` naming the problem.

    Codes: ``output_dir_is_file`` (it, or a parent, is a file), ``output_dir_unwritable``.
    """
    from molx_agent.errors import DataError

    path = Path(path).expanduser()
    if path.exists() and not path.is_dir():
        raise DataError("output_dir_is_file", f"{what} {path} is a file, not a directory", value=str(path),
                        hint="give a directory path (it is created when missing)")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise DataError("output_dir_is_file", f"cannot create {what} {path}: a parent is a file", value=str(path),
                        hint="give a directory path (it is created when missing)") from None
    except OSError as exc:
        raise DataError("output_dir_unwritable", f"cannot create {what} {path}: {exc.strerror or exc}",
                        value=str(path)) from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise DataError("output_dir_unwritable", f"{what} {path} is not writable", value=str(path))
    return path


# -- reading input files --------------------------------------------------------------------------------
_GZIP_MAGIC = b"\x1f\x8b"
_ZIP_MAGIC = b"PK\x03\x04"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_CONTROL_BYTES = tuple(c for c in range(32) if c not in (9, 10, 12, 13)) + (127,)


def check_input_file(path: str | os.PathLike[str], what: str = "file", *, data: bool = True) -> Path:
    """``path`` as a readable regular file within the size limit, or ``DataError`` naming the problem.

    Codes: ``file_not_found``, ``is_a_directory``, ``not_a_file``, ``unreadable_file``, ``file_too_large``
    (``data=True``: the data-file limit; ``False``: the JSON-document limit, see ``molx_agent.limits``).
    """
    from molx_agent.errors import DataError
    from molx_agent.limits import check_file_size

    p = Path(path)
    if p.is_dir():
        raise DataError("is_a_directory", f"{what} {p} is a directory, not a file", value=str(p),
                        hint="give the path of a file inside it")
    if not p.exists():
        raise DataError("file_not_found", f"{what} not found: {p}", value=str(p))
    if not p.is_file():
        raise DataError("not_a_file", f"{what} {p} is not a regular file", value=str(p))
    try:
        size = p.stat().st_size
        with p.open("rb") as fh:
            fh.read(1)
    except OSError as exc:
        raise DataError("unreadable_file", f"cannot read {what} {p}: {exc.strerror or exc}", value=str(p)) from None
    check_file_size(p, size, what=what, data=data)
    return p


def sniff_text_encoding(head: bytes, path: str | os.PathLike[str], what: str = "file") -> str:
    """The encoding to read a text file with (``utf-8-sig``, or ``utf-16`` / ``utf-16-le`` / ``utf-16-be``), from
    its first bytes; ``DataError`` for data that is not text: ``compressed_file`` (gzip, zip/xlsx),
    ``binary_file`` (NUL bytes or many control characters)."""
    from molx_agent.errors import DataError

    if head.startswith(_UTF16_BOMS):
        return "utf-16"
    if head.startswith(_GZIP_MAGIC):
        raise DataError("compressed_file", f"{what} {path} is gzip-compressed, not text", value=str(path),
                        hint="decompress it first (gunzip)")
    if head.startswith(_ZIP_MAGIC):
        raise DataError("compressed_file", f"{what} {path} is a zip archive (or an Excel workbook), not text",
                        value=str(path), hint="extract it, or give an Excel file the .xlsx suffix")
    if len(head) >= 8 and b"\x00" in head:  # UTF-16 without a byte-order mark: every other byte is NUL (ASCII)
        odd, even = head[1::2].count(0), head[0::2].count(0)
        if odd >= 0.4 * (len(head) // 2) and even == 0:
            return "utf-16-le"
        if even >= 0.4 * (len(head) // 2) and odd == 0:
            return "utf-16-be"
    controls = sum(head.count(bytes([c])) for c in _CONTROL_BYTES)
    if b"\x00" in head or controls > max(2, len(head) // 100):  # text has (almost) no control characters
        raise DataError("binary_file", f"{what} {path} holds binary data, not text", value=str(path),
                        hint="give a UTF-8 text file")
    return "utf-8-sig"


def decode_text(raw: bytes, path: str | os.PathLike[str], what: str = "file") -> str:
    """Decode an input file's bytes (UTF-8, or UTF-16 with a byte-order mark); ``DataError`` otherwise
    (``compressed_file``, ``binary_file``, ``encoding_error`` naming the byte offset)."""
    from molx_agent.errors import DataError

    encoding = sniff_text_encoding(raw[:4096], path, what)
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        raise DataError("encoding_error", f"{what} {path} is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset "
                        f"{exc.start})", value=str(path), hint="save it as UTF-8") from None


def read_input_text(path: str | os.PathLike[str], what: str = "file", *, data: bool = False) -> str:
    """The text of an input file, checked by :func:`check_input_file` and :func:`decode_text`."""
    p = check_input_file(path, what, data=data)
    return decode_text(p.read_bytes(), p, what)


# -- locks ------------------------------------------------------------------------------------------------
@contextlib.contextmanager
def file_lock(lock_path: str | os.PathLike[str], *, timeout: float | None = None, what: str = "file") -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``lock_path`` (created if needed) for a read-modify-write cycle.

    Waits at most ``timeout`` seconds (default: ``MOLX_LOCK_TIMEOUT``, 60 s) for another process to finish,
    then raises ``ExecutionError("session_locked")`` naming ``what``.  The lock dies with its process (a
    killed writer never leaves a stale lock).  A no-op where ``fcntl`` is unavailable (Windows).
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    from molx_agent.errors import ExecutionError

    if timeout is None:
        from molx_agent.limits import current_limits

        timeout = current_limits().lock_timeout
    lock_path = Path(lock_path)
    try:
        fh = open(lock_path, "a+b")  # noqa: SIM115 - closed below, after the lock is released
    except OSError as exc:
        from molx_agent.errors import DataError

        raise DataError("output_dir_unwritable", f"cannot lock {what}: {exc.strerror or exc} in {lock_path.parent}",
                        value=str(lock_path.parent)) from None
    with fh:
        deadline = time.monotonic() + timeout
        delay = 0.01
        while True:
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise ExecutionError("session_locked", f"{what} is busy: another process has held its lock for "
                                         f"more than {timeout:g} s", value=str(lock_path),
                                         hint="wait for the other command to finish, or raise MOLX_LOCK_TIMEOUT") from None
                time.sleep(delay)
                delay = min(delay * 2, 0.2)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


__all__ = [
    "atomic_write_bytes",
    "atomic_write_text",
    "atomic_write_json",
    "to_jsonable",
    "dumps",
    "timestamped_dir",
    "ensure_output_dir",
    "check_input_file",
    "sniff_text_encoding",
    "decode_text",
    "read_input_text",
    "file_lock",
]
