"""The Covariate-shift histogram's axes follow each frame (issue 40): the Bokeh plot's ranges after an
update are those of the new data, as the export's are."""

from __future__ import annotations

import holoviews as hv
import numpy as np
from bokeh.models import Plot

from buviz.plots.curve_displays import CovariateShiftDisplay
from buviz.plots.uncertainty import symmetric_limit


def _sample(scale: float, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    return {k: rng.normal(0.0, scale, 600) for k in ("f_train", "f_tilde", "f_test")}


def _peak(values: dict, bins: int = 50) -> tuple[float, float]:
    """(clim, the highest density) of the histograms the display draws (50 bins on ±clim)."""
    c = symmetric_limit(*values.values(), quantile=0.995)
    edges = np.linspace(-c, c, bins + 1)
    return c, max(np.histogram(np.clip(v, -c, c), edges, density=True)[0].max() for v in values.values())


def _ranges(fig) -> tuple[float, float, float, float]:
    return fig.x_range.start, fig.x_range.end, fig.y_range.start, fig.y_range.end


def test_the_histogram_ranges_follow_each_frame_and_match_the_export():
    hv.extension("bokeh")
    wide, narrow = _sample(3.0, 0), _sample(0.1, 1)
    display = CovariateShiftDisplay(**wide)
    plot = hv.renderer("bokeh").get_plot(display.plot(panel="hist"))
    fig = plot.state if isinstance(plot.state, Plot) else plot.state.select_one({"type": Plot})
    c, peak = _peak(wide)
    x0, x1, _, y1 = _ranges(fig)
    assert x0 <= -c * 0.99 and x1 >= c * 0.99 and peak <= y1 <= 1.25 * peak
    for values in (narrow, wide):  # narrower (densities about 30 times higher), then back
        display.update(**values)
        c, peak = _peak(values)
        x0, x1, _, y1 = _ranges(fig)
        assert -1.3 * c <= x0 <= -0.99 * c and 0.99 * c <= x1 <= 1.3 * c
        assert peak <= y1 <= 1.25 * peak, f"y axis ends at {y1:.3g} for a peak of {peak:.3g}"
        export = hv.renderer("bokeh").get_plot(display.element(panel="hist")).state
        ex = export if isinstance(export, Plot) else export.select_one({"type": Plot})
        assert np.allclose(_ranges(fig), _ranges(ex), rtol=1e-6)
