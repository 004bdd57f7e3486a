"""Real-browser check of a self-contained HTML report (headless Debian Chromium via Playwright).

Usage in a test::

    from tests.browser import check_html_in_browser, require_chromium

    def test_report_in_browser(tmp_path):
        require_chromium()                      # skips with a clear reason when chromium is absent
        result = check_html_in_browser(html_path, tmp_path / "report.png")
        assert result.ok, result.problems

``check_html_in_browser`` opens the file from disk, blocks and records every request that
would leave the page (anything but ``file:``/``data:``/``about:``), waits for the page to
load, then reports console errors, page errors, images that did not load
(``naturalWidth == 0``) and external requests, and saves a full-page screenshot.
Never downloads a browser: it uses ``/usr/bin/chromium`` (or ``$MOLX_CHROMIUM``).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
LOCAL_SCHEMES = ("file:", "data:", "about:", "blob:")


def chromium_executable() -> str | None:
    """Path of the system Chromium, or None."""
    for cand in (os.environ.get("MOLX_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
                 shutil.which("chromium-browser")):
        if cand and Path(cand).is_file() and os.access(cand, os.X_OK):
            return cand
    return None


def require_chromium() -> str:
    """Return the Chromium path or skip the test with a clear reason."""
    exe = chromium_executable()
    if exe is None:
        pytest.skip("headless Chromium not installed (/usr/bin/chromium); `apt-get install chromium` "
                    "or set MOLX_CHROMIUM")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:  # pragma: no cover - playwright is a dev dependency
        pytest.skip("playwright is not installed (dev dependency)")
    return exe


@dataclass
class BrowserCheck:
    """What the browser saw."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    external_requests: list[str] = field(default_factory=list)
    broken_images: list[str] = field(default_factory=list)
    n_images: int = 0
    title: str = ""
    screenshot: str = ""
    body_text: str = ""

    @property
    def problems(self) -> list[str]:
        return ([f"console error: {m}" for m in self.console_errors]
                + [f"page error: {m}" for m in self.page_errors]
                + [f"external request: {u}" for u in self.external_requests]
                + [f"image did not load: {s}" for s in self.broken_images])

    @property
    def ok(self) -> bool:
        return not self.problems


def check_html_in_browser(html_path: str | Path, screenshot_path: str | Path | None = None, *,
                          width: int = 1280, timeout_ms: int = 30000) -> BrowserCheck:
    """Open ``html_path`` in headless Chromium and report what went wrong (see module doc)."""
    from playwright.sync_api import sync_playwright

    exe = chromium_executable()
    if exe is None:
        raise RuntimeError("chromium not found; call require_chromium() first")
    result = BrowserCheck()
    url = Path(html_path).resolve().as_uri()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": 900})

            def on_route(route):  # noqa: ANN001
                req_url = route.request.url
                if req_url.startswith(LOCAL_SCHEMES):
                    route.continue_()
                else:
                    result.external_requests.append(req_url)
                    route.abort()

            page.route("**/*", on_route)
            page.on("console", lambda msg: result.console_errors.append(msg.text) if msg.type == "error" else None)
            page.on("pageerror", lambda exc: result.page_errors.append(str(exc)))
            page.goto(url, wait_until="load", timeout=timeout_ms)
            images = page.evaluate(
                "() => Array.from(document.images).map(i => ({src: i.currentSrc.slice(0, 80),"
                " ok: i.complete && i.naturalWidth > 0}))")
            result.n_images = len(images)
            result.broken_images = [i["src"] for i in images if not i["ok"]]
            result.title = page.title()
            result.body_text = page.inner_text("body")
            if screenshot_path is not None:
                page.screenshot(path=str(screenshot_path), full_page=True)
                result.screenshot = str(screenshot_path)
        finally:
            browser.close()
    return result


__all__ = ["BrowserCheck", "check_html_in_browser", "chromium_executable", "require_chromium", "CHROMIUM_ARGS"]
