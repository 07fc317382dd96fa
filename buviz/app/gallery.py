"""The explorer's "Figures" tab: every registered paper figure, its parameters as widgets, rendered on
demand with the Bokeh backend, and exported as SVG, PNG or PDF through :func:`buviz.figures.to_bytes`.

The widgets come from the figures' param declarations (bounds, choices, defaults, docs as tooltips).
A figure can take seconds, so nothing renders on a widget change: the "Render" button builds the
figure (a job of the one runner's heavy lane, :mod:`buviz.app.runner`: the γ sweeps of some figures
drive the joblib pool, so they wait for a running CV sweep) and the last figure stays on screen until
the new one is ready; a bad parameter or a failing build shows a message instead.
"""

from __future__ import annotations

import io

import pandas as pd
import panel as pn
import param

from buviz import figures
from buviz.app.runner import RUNNER
from buviz.app.session import SessionLink
from buviz.figures._base import parse_text

__all__ = ["FigureGallery", "PAPER_TITLES"]

#: Group titles of the figure selector.
PAPER_TITLES = {"uncertainty": "Boundary uncertainty (Ha et al. 2021)",
                "extrapolation": "Accuracy extrapolation (Zheng et al. 2017)",
                "discrete": "Discrete case (Nedel'ko 2009)"}
EXPORT_FORMATS = ("svg", "png", "pdf")


def _list_text(value) -> str:
    return ", ".join(str(v) for v in value) if value is not None else ""


def _read_list(text: str, p: param.Parameter) -> list:
    return parse_text(p, text)


def _widget(name: str, p: param.Parameter, tooltip: str):
    """A widget for one figure parameter, from its declaration."""
    kw = dict(label=name, description=tooltip, sizing_mode="stretch_width")
    if isinstance(p, param.Boolean):
        return pn.widgets.Checkbox(value=bool(p.default), label=name)
    if isinstance(p, param.Integer) and p.default is not None:
        lo, hi = p.bounds or (None, None)
        return pn.widgets.IntInput(value=p.default, start=lo, end=hi, **kw)
    if isinstance(p, param.Number) and not isinstance(p, param.Integer):
        lo, hi = p.bounds or (None, None)
        return pn.widgets.FloatInput(value=p.default, start=lo, end=hi, **kw)
    if isinstance(p, param.ListSelector):
        return pn.widgets.MultiChoice(value=list(p.default), options=list(p.objects), **kw)
    if isinstance(p, param.Selector):
        return pn.widgets.Select(value=p.default, options=list(p.objects), **kw)
    if isinstance(p, param.List):
        return pn.widgets.TextInput(value=_list_text(p.default), **kw)
    return pn.widgets.TextInput(value="" if p.default is None else str(p.default), **kw)  # e.g. optional index


class FigureGallery(pn.viewable.Viewer):
    """The registered figures grouped by paper; the chosen one's parameters, a Render button, the figure
    (Bokeh) and its export.

    Parameters
    ----------
    figure : str
        Key of the figure shown (a :data:`buviz.figures.REGISTRY` key).
    """

    figure = param.Selector(default="discrete_fig2", objects=list(figures.REGISTRY), doc="figure shown")
    rendering = param.Boolean(False, doc="a render is under way")
    link = param.ClassSelector(class_=SessionLink, default=None, precedence=-1,
                               doc="Where the rendered figure is delivered (the session's)")

    def __init__(self, **params):
        super().__init__(**params)
        if self.link is None:
            self.link = SessionLink.for_current_session()
        groups = {title: {f"{figures.REGISTRY[k].description} ({k})": k for k in figures.REGISTRY
                          if figures.REGISTRY[k].paper == paper} for paper, title in PAPER_TITLES.items()}
        self.select = pn.widgets.Select(label="Figure", groups=groups, value=self.figure, sizing_mode="stretch_width")
        self.select.param.watch(lambda e: setattr(self, "figure", e.new), "value")
        self.widgets: dict[str, pn.widgets.Widget] = {}
        self.param_box = pn.Column(sizing_mode="stretch_width")
        self.render_button = pn.widgets.Button(label="Render", color="primary", sizing_mode="stretch_width")
        self.render_button.on_click(self._on_render)
        self.info = pn.pane.Markdown(sizing_mode="stretch_width", css_classes=["buviz-gallery-info"])
        self.message = pn.pane.Alert(alert_type="danger", visible=False, sizing_mode="stretch_width",
                                     css_classes=["buviz-gallery-message"])
        # fixed size: figures.render draws each figure at its export size (style.screen_sized), its panels
        # in the export's proportions, so that no plot frame is squeezed by its axes and legend
        self.plot = pn.pane.HoloViews(None, backend="bokeh", min_height=450, css_classes=["buviz-gallery-plot"])
        self.plot_box = pn.Column(self.plot)
        self.shown = pn.pane.Markdown("", sizing_mode="stretch_width", css_classes=["buviz-gallery-shown"])
        self.table = pn.pane.DataFrame(None, visible=False, sizing_mode="stretch_width")
        self.obj = None  # the last figure rendered (HoloViews object or DataFrame)
        self.rendered_key = None
        self.downloads = pn.Row(*[self._download(fmt) for fmt in EXPORT_FORMATS])
        self._show_parameters()

    # -- parameters ------------------------------------------------------------------------------
    @param.depends("figure", watch=True)
    def _show_parameters(self) -> None:
        cls = figures.get(self.figure)
        if self.select.value != self.figure:
            self.select.value = self.figure
        self.widgets = {n: _widget(n, cls.param[n], f"{cls.param[n].doc or ''} ({cls.accepts_text(n)})")
                        for n in cls.parameter_names()}
        self.param_box[:] = list(self.widgets.values())
        formerly = f" (formerly `{cls.alias}`)" if cls.alias else ""
        self.info.object = (f"**{cls.key}**{formerly}: {cls.description}  \n"
                            f"<small>{cls.citation()}</small>")

    def values(self) -> dict:
        """The parameter values the widgets hold (only those that differ from the defaults)."""
        cls = figures.get(self.figure)
        out = {}
        for n, w in self.widgets.items():
            p = cls.param[n]
            v = w.value
            if isinstance(w, pn.widgets.TextInput):
                v = _read_list(v, p) if isinstance(p, param.List) else (None if v.strip().lower() in ("", "none")
                                                                         else _read_list(v, p))
            if v != p.default:
                out[n] = v
        return out

    # -- rendering -------------------------------------------------------------------------------
    def _show(self, key: str, obj=None, error: Exception | None = None) -> bool:
        if error is not None:
            self.message.object = f"{type(error).__name__}: {error}"
            self.message.visible = True
            return False
        self.message.visible = False
        self.obj, self.rendered_key = obj, key
        if isinstance(obj, pd.DataFrame):
            # the plot pane is emptied and its box hidden, never the pane itself: toggling a HoloViews
            # pane's ``visible`` makes Panel pass its design to the Bokeh figure (AttributeError 'design')
            self.plot.object, self.plot_box.visible = None, False
            self.table.object, self.table.visible = obj, True
        else:
            self.table.object, self.table.visible = None, False
            self.plot.object, self.plot_box.visible = obj, True  # at its export size (figures.render)
        self.shown.object = f"<small>Shown: `{key}`</small>"
        return True

    def render(self, *, blocking: bool | None = None) -> bool:
        """Build the chosen figure with the widgets' values (a job of the runner's heavy lane) and
        show it; on failure keep the last figure and show the error. ``blocking`` (default: when not
        served) waits for it. Returns whether it rendered (blocking) or was submitted."""
        key = self.figure
        try:
            values = self.values()
        except Exception as exc:  # any failure becomes a message: the explorer must not go down
            return self._show(key, error=exc)
        if self.rendering:
            return False
        self.rendering = True
        self.render_button.loading = True
        job = RUNNER.submit(lambda j: figures.render(key, **values), lane="heavy", slot=("gallery", id(self)),
                            label=f"figure {key}")
        self.link.watch(job, lambda j: self._rendered(key, j))
        if (not self.link.served) if blocking is None else blocking:
            self.link.wait()
            return job.status == "done"
        return True

    def _rendered(self, key: str, job) -> None:
        self.rendering = False
        self.render_button.loading = False
        if job.status == "done":
            self._show(key, job.result)
        elif job.status == "error":
            self._show(key, error=job.exception)

    def _on_render(self, event=None) -> None:
        self.render()

    # -- export ----------------------------------------------------------------------------------
    def figure_bytes(self, fmt: str) -> bytes:
        """The last rendered figure as ``fmt`` (svg, png, pdf) at its default export size.

        Nothing is rendered here (a download callback runs on the server's event loop): before the
        first *Render* this raises ``ValueError``.
        """
        if self.obj is None:
            raise ValueError("Press Render first: the export writes the figure shown.")
        cls = figures.get(self.rendered_key)
        return figures.to_bytes(self.obj, fmt, *cls.size, dpi=150, twin_y=cls.twin_y, title=cls.description)

    def _download(self, fmt: str) -> pn.widgets.FileDownload:
        fd = pn.widgets.FileDownload(label=fmt.upper(), filename=f"buviz_figure.{fmt}", embed=False,
                                     color="light", width=80, description=f"Export the figure as {fmt.upper()}")

        def callback():
            fd.filename = f"buviz_{self.rendered_key or self.figure}.{fmt}"
            try:
                return io.BytesIO(self.figure_bytes(fmt))
            except Exception as exc:
                self._show(self.figure, error=exc)
                return None

        fd.callback = callback
        return fd

    # -- layout ----------------------------------------------------------------------------------
    def controls(self) -> pn.Column:
        """The sidebar: figure selector, parameters, Render button, exports."""
        return pn.Column(self.select, self.param_box, self.render_button, self.downloads,
                         sizing_mode="stretch_width")

    def main(self) -> pn.Column:
        """The main area: description and citation, error message, the figure."""
        return pn.Column(self.info, self.message, self.shown, self.plot_box, self.table, sizing_mode="stretch_width",
                         styles={"overflow-x": "auto"})

    def __panel__(self):
        return pn.Row(pn.Column(self.controls(), width=320), self.main())
