"""The near-boundary rings of the sample-space map (d > 2) leave the class colours readable: on
Letter Recognition (26 classes) in headless Chromium, the centre pixel of every drawn training point
still shows its class colour (the rings are drawn under the points)."""

import numpy as np
import pytest

from buviz.plots import style

from .conftest import require_browser

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: The map's frame on the page (px) and its data ranges.
FRAME_JS = """() => {
  const plot = [...Bokeh.index.query(v => ['Figure', 'Plot'].includes(v.model.constructor.__name__))][0];
  const box = plot.el.getBoundingClientRect(), f = plot.frame.bbox;
  return {left: box.x + f.x, top: box.y + f.y, width: f.width, height: f.height,
          x0: plot.model.x_range.start, x1: plot.model.x_range.end,
          y0: plot.model.y_range.start, y1: plot.model.y_range.end};
}"""


def _rgb(hexes) -> np.ndarray:
    return np.array([[int(h.lstrip("#")[i:i + 2], 16) for i in (0, 2, 4)] for h in hexes], dtype=float)


@pytest.fixture(scope="module")
def letter_map(tmp_path_factory):
    import panel as pn

    from buviz import datasets
    from buviz.classifiers import svm_status
    from buviz.plots.displays import SampleSpaceDisplay
    from buviz.uncertainty import BoundaryUncertainty

    require_browser()
    ds = datasets.load("letter", n_train=600, n_test=100, random_state=0)
    r = BoundaryUncertainty(M=10, random_state=0).fit(ds.X_train, ds.y_train).evaluate(
        svm_status(ds.X_train, ds.y_train, 2.0 ** -2, 1.0))
    disp = SampleSpaceDisplay.from_result(r, ds)
    assert len(disp.near_boundary) > 100  # most points are near some pair's boundary: rings everywhere
    el = disp.element().opts(width=700, height=600, backend="bokeh")
    path = tmp_path_factory.mktemp("rings") / "letter.html"
    pn.pane.HoloViews(el, backend="bokeh").save(str(path), resources="inline")
    return path, np.asarray(disp.X, dtype=float), [style.class_color(j) for j in disp.y]


def test_rings_leave_the_class_colour_of_every_point_centre(browser, letter_map):
    import io

    from PIL import Image

    path, X, colours = letter_map
    page = browser.new_page(viewport={"width": 1000, "height": 800})
    try:
        page.goto(path.as_uri())
        page.wait_for_function("() => window.Bokeh && [...Bokeh.index.query(v => v.model.constructor.__name__"
                               " === 'GlyphRenderer')].length > 1", timeout=60_000)
        page.wait_for_timeout(500)
        f = page.evaluate(FRAME_JS)
        shot = np.asarray(Image.open(io.BytesIO(page.screenshot())).convert("RGB"), dtype=float)
    finally:
        page.close()
    px_x = f["left"] + (X[:, 0] - f["x0"]) / (f["x1"] - f["x0"]) * f["width"]
    px_y = f["top"] + (f["y1"] - X[:, 1]) / (f["y1"] - f["y0"]) * f["height"]
    inside = (px_x > f["left"] + 2) & (px_x < f["left"] + f["width"] - 2) & (px_y > f["top"] + 2) \
        & (px_y < f["top"] + f["height"] - 2)
    px = shot[np.round(px_y[inside]).astype(int), np.round(px_x[inside]).astype(int)]
    dot = 0.75 * _rgb(np.asarray(colours)[inside]) + 0.25 * 255  # the class colour at the points' opacity
    ring = 0.55 * _rgb([style.HIGHLIGHT_COLOR])[0] + 0.45 * 255
    own, tinted = np.linalg.norm(px - dot, axis=1), np.linalg.norm(px - ring, axis=1)
    shown = float(np.mean(own < tinted))
    print(f"{inside.sum()} point centres: {shown:.3f} closer to their class colour than to the ring's")
    assert inside.sum() >= 400
    assert shown >= 0.95
