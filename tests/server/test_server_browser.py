"""The page in a real browser (headless Debian Chromium through Playwright, never `playwright install`): the API key
prompt, uploading examples/series.csv and seeing the SAR report, asking for a route, answering the route-choice
interrupt with a button, seeing the route tree.  Screenshots: the test's tmp folder, copied to tests/artifacts/
(ignored by git)."""

from __future__ import annotations

import shutil

import pytest

from tests.browser import CHROMIUM_ARGS, require_chromium
from tests.server.conftest import ARTIFACTS, SERIES_CSV, two_route_agent_factory

pytestmark = [pytest.mark.browser, pytest.mark.server]
KEY = "browser-key"


def _keep(path):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shutil.copy2(path, ARTIFACTS / path.name)


def test_page_sar_upload_route_tree_and_route_choice(live_server, tmp_path):
    exe = require_chromium()
    from playwright.sync_api import expect, sync_playwright

    server = live_server(api_key=KEY, agent=two_route_agent_factory(tmp_path))
    external, errors = [], []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1000})

            def route(r):  # noqa: ANN001 - nothing may leave 127.0.0.1 (offline page)
                url = r.request.url
                if url.startswith((server.url, "data:", "blob:", "about:")):
                    r.continue_()
                else:
                    external.append(url)
                    r.abort()

            page.route("**/*", route)
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" and "401" not in m.text else None)
            page.goto(server.url, wait_until="load")
            # the page loads without the key, then asks for it
            expect(page.locator("#key-dialog")).to_be_visible(timeout=10_000)
            page.fill("#key-input", KEY)
            page.click("#key-save")
            expect(page.locator("#key-dialog")).to_be_hidden()

            # 1. upload the series, ask for its SAR, see the report in the page
            page.set_input_files("#file-input", str(SERIES_CSV))
            expect(page.locator("#files li[data-path='uploads/series.csv']")).to_be_visible(timeout=20_000)
            expect(page.locator("#query")).to_have_value("Analyse the SAR of series.csv")
            page.click("#send")
            expect(page.locator(".msg.assistant").first).to_be_visible(timeout=120_000)
            frame = page.frame_locator("#report-frame")
            expect(frame.locator("body")).to_contain_text("GSK3B", timeout=30_000)
            assert page.locator("#tab-reports").is_visible()
            shot = tmp_path / "web_sar_report.png"
            page.screenshot(path=str(shot), full_page=True)
            _keep(shot)

            # 2. ask for a route with "approve the plan" and "choose the route": both answered with buttons
            page.check("#opt-confirm")
            page.check("#opt-choose")
            page.fill("#query", "Plan a synthesis of CC(=O)Nc1ccc(O)cc1")
            page.click("#send")
            expect(page.locator("#interrupt button.approve")).to_be_visible(timeout=120_000)
            expect(page.locator("#interrupt .question")).to_contain_text("plan")
            shot = tmp_path / "web_plan_approval.png"
            page.screenshot(path=str(shot), full_page=True)
            _keep(shot)
            page.click("#interrupt button.approve")
            choices = page.locator("#interrupt .choice")
            expect(choices).to_have_count(2, timeout=120_000)
            expect(page.locator("#interrupt .question")).to_contain_text("routes were found")
            page.wait_for_function("() => Array.from(document.querySelectorAll('#interrupt img'))"
                                   ".every(i => i.complete && i.naturalWidth > 0)", timeout=20_000)
            shot = tmp_path / "web_route_choice.png"
            page.screenshot(path=str(shot), full_page=True)
            _keep(shot)
            choices.nth(1).click()
            expect(page.locator(".msg.assistant").nth(1)).to_contain_text("the chemist chose route 1",
                                                                          timeout=120_000)
            # the route tree: structures, step names, leaf tiers, route confidence
            expect(page.locator("#tab-routes .route").first).to_be_visible()
            assert page.locator("#tab-routes").is_visible()
            tree_text = page.locator("#routes").inner_text()
            assert "N-acylation" in tree_text and "verified" in tree_text and "confidence" in tree_text
            page.wait_for_function("() => { const imgs = document.querySelectorAll('#routes img');"
                                   " return imgs.length >= 3 && Array.from(imgs).every(i => i.complete &&"
                                   " i.naturalWidth > 0); }", timeout=20_000)
            assert page.locator("#routes .mol[data-smiles='CC(=O)Cl']").count() >= 1
            chosen = page.locator("#routes .route:has(.badge.chosen)")
            expect(chosen).to_have_count(1)
            assert "N-acylation" in chosen.inner_text() and "chosen by you" in chosen.inner_text()
            shot = tmp_path / "web_route_tree.png"
            page.screenshot(path=str(shot), full_page=True)
            _keep(shot)
            # the route report is in the page too
            page.click(".tab[data-tab='reports']")
            options = page.locator("#report-select option").all_inner_texts()
            assert any("SYNTHESIS_REPORT.html" in o for o in options), options
        finally:
            browser.close()
    assert not external, external
    assert not errors, errors
