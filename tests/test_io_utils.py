from __future__ import annotations

import json
import os
import stat

import pytest

from molx_agent.io_utils import atomic_write_json, atomic_write_text, timestamped_dir


def test_atomic_write_replaces_content_and_leaves_no_temp(tmp_path):
    path = tmp_path / "sub" / "a.json"
    atomic_write_json(path, {"x": 1, "名": "阿司匹林"})
    atomic_write_json(path, {"x": 2})
    assert json.loads(path.read_text(encoding="utf-8")) == {"x": 2}
    assert [p.name for p in path.parent.iterdir()] == ["a.json"]


def test_atomic_write_honours_umask(tmp_path):
    old = os.umask(0o022)
    try:
        path = atomic_write_text(tmp_path / "r.html", "<html></html>")
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_failed_write_keeps_old_file(tmp_path, monkeypatch):
    path = tmp_path / "s.json"
    atomic_write_text(path, "old")

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        atomic_write_text(path, "new")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"]


def test_timestamped_dir_is_unique(tmp_path):
    a = timestamped_dir(tmp_path, "Losartan potassium")
    b = timestamped_dir(tmp_path, "Losartan potassium")
    assert a != b and a.name.endswith("Losartan_potassium") and b.is_dir()


# -- errors name the destination, input files name their real problem, locks ---------------------------------------
def test_write_errors_name_the_destination_not_the_temp_file(tmp_path):
    directory = tmp_path / "routes.json"
    directory.mkdir()
    with pytest.raises(IsADirectoryError) as exc:
        atomic_write_text(directory, "{}")
    assert exc.value.filename == str(directory)
    blocker = tmp_path / "blocker"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(NotADirectoryError) as exc:
        atomic_write_text(blocker / "sub" / "a.json", "{}")
    assert ".tmp" not in str(exc.value) and str(blocker / "sub" / "a.json") == exc.value.filename


def test_ensure_output_dir(tmp_path):
    from molx_agent.errors import DataError
    from molx_agent.io_utils import ensure_output_dir

    assert ensure_output_dir(tmp_path / "a" / "b").is_dir()
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    for path in (blocker, blocker / "sub"):
        with pytest.raises(DataError) as exc:
            ensure_output_dir(path)
        assert exc.value.code == "output_dir_is_file"
    with pytest.raises(DataError):
        timestamped_dir(blocker, "x")


@pytest.mark.parametrize(("data", "code"), [
    (b"\x1f\x8b\x08\x00abc", "compressed_file"),
    (b"PK\x03\x04abc", "compressed_file"),
    (b"abc\x00def", "binary_file"),
    (bytes(range(1, 32)) * 20, "binary_file"),
    (b'{"a": "\xb5M"}', "encoding_error"),
])
def test_read_input_text_names_the_problem(tmp_path, data, code):
    from molx_agent.errors import DataError
    from molx_agent.io_utils import read_input_text

    path = tmp_path / "in.json"
    path.write_bytes(data)
    with pytest.raises(DataError) as exc:
        read_input_text(path, "--args-file")
    assert exc.value.code == code and "--args-file" in exc.value.message


def test_read_input_text_reads_utf8_and_utf16(tmp_path):
    from molx_agent.io_utils import read_input_text

    text = '{"name": "阿司匹林", "smiles": "CCO"}'
    for encoding in ("utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be"):
        path = tmp_path / f"{encoding}.json"
        path.write_bytes(text.encode(encoding))
        assert read_input_text(path) == text, encoding


def test_read_input_text_directories_missing_files_and_size(tmp_path, monkeypatch):
    from molx_agent.config import reset_settings_cache
    from molx_agent.errors import DataError
    from molx_agent.io_utils import read_input_text

    for path, code in ((tmp_path, "is_a_directory"), (tmp_path / "missing.json", "file_not_found")):
        with pytest.raises(DataError) as exc:
            read_input_text(path)
        assert exc.value.code == code
    monkeypatch.setenv("MOLX_MAX_JSON_MB", "0.001")
    reset_settings_cache()
    big = tmp_path / "big.json"
    big.write_text("[" + "1," * 2000 + "1]", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        read_input_text(big)
    assert exc.value.code == "file_too_large"


def test_file_lock_waits_then_fails_clearly(tmp_path):
    import threading
    import time

    from molx_agent.errors import ExecutionError
    from molx_agent.io_utils import file_lock

    lock = tmp_path / ".s.json.lock"
    order: list[str] = []

    def second() -> None:
        with file_lock(lock, timeout=5):
            order.append("second")

    with file_lock(lock, timeout=1):
        worker = threading.Thread(target=second)
        worker.start()
        time.sleep(0.2)
        order.append("first")
    worker.join()
    assert order == ["first", "second"]  # the second writer waited for the first
    with file_lock(lock, timeout=1):
        with pytest.raises(ExecutionError) as exc:
            with file_lock(lock, timeout=0.1, what="the session s.json"):
                pass
    assert exc.value.code == "session_locked" and "the session s.json is busy" in exc.value.message
