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
