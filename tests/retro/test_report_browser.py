"""The exported route report in a real browser (headless Debian Chromium): no console error, every
image loaded, no request leaving the page; a screenshot is saved for a human look."""

from __future__ import annotations

import pytest

from molx_agent.retro.report import render_route_report
from tests.browser import check_html_in_browser, require_chromium
from tests.retro.report_fixtures import losartan_route

pytestmark = pytest.mark.browser


def test_route_report_renders_in_chromium(tmp_path):
    require_chromium()
    paths = render_route_report(losartan_route(), tmp_path / "rep", name="Losartan")
    shot = tmp_path / "losartan_report.png"
    result = check_html_in_browser(paths["html"], shot)
    assert result.ok, result.problems
    assert result.n_images == 1 + 1 + 5 + 3  # target, tree, 5 reactions, 3 starting materials
    assert result.title == "Synthesis route report: Losartan"
    assert "Starting materials" in result.body_text and "zinc-instock-mini" in result.body_text
    assert shot.stat().st_size > 10_000


def test_browser_check_catches_external_and_broken_images(tmp_path):
    """The helper must fail a page that calls out or shows a broken image (it can fail)."""
    require_chromium()
    page = tmp_path / "bad.html"
    page.write_text('<html><body><img src="https://example.invalid/x.png"><img src="missing.png">'
                    '<script>console.error("boom")</script></body></html>', encoding="utf-8")
    result = check_html_in_browser(page)
    assert result.external_requests == ["https://example.invalid/x.png"]
    assert len(result.broken_images) == 2
    assert "boom" in " ".join(result.console_errors)
