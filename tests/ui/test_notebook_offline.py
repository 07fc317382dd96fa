"""A notebook exported to HTML draws its Bokeh figures with every request off this machine blocked:
the Bokeh, HoloViews and Panel JavaScript is inlined by ``pn.extension(inline=True)``."""

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

import pytest

from .conftest import ROOT, require_browser

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOTEBOOK = ROOT / "notebooks" / "05_discrete_estimators.ipynb"  # the quickest to execute (about 25 s)
LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", ""}


@pytest.fixture(scope="module")
def exported_html(tmp_path_factory) -> Path:
    require_browser()
    out = tmp_path_factory.mktemp("html")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", "--execute", str(NOTEBOOK),
                    "--output-dir", str(out)], check=True, capture_output=True, env=env, timeout=300)
    return out / (NOTEBOOK.stem + ".html")


def test_exported_notebook_draws_offline(browser, exported_html):
    blocked, js_errors = [], []
    page = browser.new_page(viewport={"width": 1200, "height": 900})

    def route(r):
        url = urlparse(r.request.url)
        if url.scheme in ("http", "https", "ws", "wss") and url.hostname not in LOCAL_HOSTS:
            blocked.append(r.request.url)
            return r.abort()
        return r.continue_()

    page.route("**/*", route)
    page.on("pageerror", lambda exc: js_errors.append(str(exc)))
    try:
        page.goto(exported_html.as_uri(), wait_until="load", timeout=60_000)
        # Fig 1, Fig 2 and the N/k figure: each a Bokeh plot drawing on a canvas (inside shadow roots,
        # which Playwright's CSS selectors pierce)
        page.locator("canvas").first.wait_for(state="attached", timeout=60_000)
        page.wait_for_timeout(1000)
        n_canvas = page.locator("canvas").count()
        drawn = page.evaluate("""() => {
            const out = [];
            const walk = (root) => {
                root.querySelectorAll('*').forEach(el => { if (el.shadowRoot) walk(el.shadowRoot); });
                root.querySelectorAll('canvas').forEach(c => out.push([c.width, c.height]));
            };
            walk(document);
            return out;
        }""")
    finally:
        page.close()
    # What may still be asked for, and is not needed to draw: nbconvert's own template loads require.js
    # and MathJax from CDNs. Anything else from outside (Bokeh/Panel JavaScript, Panel's theme stylesheets,
    # which a HoloViews object displayed without pn.panel(...) still refers to by CDN URL) is a regression.
    expected = ("https://cdnjs.cloudflare.com/ajax/libs/require.js/", "https://cdnjs.cloudflare.com/ajax/libs/mathjax/",
                "https://cdn.jsdelivr.net/npm/mathjax@")
    unexpected = [u for u in blocked if not u.startswith(expected)]
    assert not unexpected, f"resources fetched from outside the machine: {unexpected}"
    assert n_canvas >= 3, f"expected the notebook's three Bokeh figures to draw, found {n_canvas} canvases"
    assert sum(1 for w, h in drawn if w > 100 and h > 100) >= 3, drawn
    assert not [e for e in js_errors if "bokeh" in e.lower() or "panel" in e.lower()], js_errors
