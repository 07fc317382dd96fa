"""The explorer's "Figures" tab: every registered paper figure, its parameters as widgets, rendered on
demand with the Bokeh backend, and exported as SVG, PNG or PDF through :func:`buviz.figures.to_bytes`.

The widgets are :class:`panel.Param` widgets of a figure instance, made from the figures' param
declarations (bounds, choices, defaults, docs as tooltips).
A figure can take seconds, so nothing renders on a widget change: the "Render" button builds the
figure (in the background on the session's job bus, heavy lane: the γ sweeps of some figures
drive the joblib pool, so they wait for a running CV sweep) and the last figure stays on screen until
the new one is ready; a bad parameter or a failing build shows a message instead.
"""

from __future__ import annotations

import functools
import io

import pandas as pd
import panel as pn
import param

from buviz import figures
from buviz._validation import InvalidParameterError
from buviz.app.bus import JobBus, Requested
from buviz.plots import style
from buviz.plots.tables import table_html

__all__ = ["FigureGallery", "HA_SCHEMATICS", "PAPER_TITLES", "MENU_LABEL_MAX", "ZHENG_SCHEMATICS", "menu_label",
           "render_within"]

#: Zheng et al.'s schematic figures, each drawn from a real computation: Figs 1-4 (the sampling of
#: classes and training sets, the marginal rule, generalization and average accuracy), 9 (conditional
#: accuracy) and 10 (U-functions). The Extrapolation tab's *Schematics* sub-tab offers them.
ZHENG_SCHEMATICS = ("extrapolation_fig1", "extrapolation_fig2", "extrapolation_fig3", "extrapolation_fig4",
                    "extrapolation_fig9", "extrapolation_fig10")
#: Ha et al.'s schematic figures, each drawn from a real computation: Fig 1 (selecting a classifier by a
#: metric, on a shipped γ sweep), Fig 2 (the two local-uncertainty functions, eqs 9 and 37) and
#: Fig 15's inset (histograms of f(x; Λ) = g_1 − g_2). The *Error vs −Û* tab's *Schematics* sub-tab
#: offers them.
HA_SCHEMATICS = ("uncertainty_fig1", "uncertainty_fig2", "uncertainty_fig15_histogram")
#: Name of the sub-tab that holds a paper's schematics (:meth:`FigureGallery.schematics_tabs`).
SCHEMATICS_TAB = "Schematics"

#: Group titles of the figure selector.
PAPER_TITLES = {"uncertainty": "Boundary uncertainty (Ha et al. 2021)",
                "extrapolation": "Accuracy extrapolation (Zheng et al. 2017)",
                "discrete": "Discrete case (Nedel'ko 2009)"}
EXPORT_FORMATS = ("svg", "png", "pdf")
#: Longest label of the figure menu (characters). The menu listed whole captions, up to 944
#: characters; it now lists the paper's figure number and the registry key, and the chosen figure's
#: caption is shown beside the menu (:attr:`FigureGallery.info`).
MENU_LABEL_MAX = 80


def menu_label(cls: type[figures.PaperFigure]) -> str:
    """The figure menu's short name of ``cls``: its number in the paper and its key
    (``"Fig 7 (Letter Recognition) · uncertainty_fig7"``), the number shortened with "…" to keep the
    label within :data:`MENU_LABEL_MAX` characters. Unique, since keys are."""
    room = MENU_LABEL_MAX - len(cls.key) - 3
    number = cls.number if len(cls.number) <= room else cls.number[:max(room - 1, 0)].rstrip() + "…"
    return f"{number} · {cls.key}" if number else cls.key


#: The look of a table: numbers right-aligned in tabular figures, the note on empty cells in small type.
_TABLE_CSS = """
table.buviz-table { border-collapse: collapse; font-size: 13px; }
table.buviz-table th, table.buviz-table td { padding: 2px 10px; border-bottom: 1px solid #ddd; }
table.buviz-table td.num { text-align: right; font-variant-numeric: tabular-nums; }
p.buviz-table-note { font-size: 12px; color: #444; }
"""


#: Numbers are typed into boxes (Panel's default for a bounded number is a slider). The boxes carry no
#: start and end: a browser's number box would clamp a typed value to them without a word, so the
#: range is in the tooltip and a value outside it is reported (:meth:`FigureGallery._check_ranges`).
_TYPED = {param.Integer: pn.widgets.IntInput, param.Number: pn.widgets.FloatInput}


def _typed(fig: param.Parameterized) -> dict:
    """Panel's widget options for each parameter: labelled by its name (as the command line and the
    docs name it), numbers typed, with what they accept in the tooltip."""
    cls = type(fig)
    options = {n: {"name": n} for n in cls.parameter_names()}
    for n in _numbers(cls):
        options[n].update(type=_TYPED[type(cls.param[n])], start=None, end=None,
                          description=f"{(cls.param[n].doc or n).strip()} ({cls.accepts_text(n)})")
    return options


def _numbers(cls: type[figures.PaperFigure]) -> list[str]:
    """The parameters of figure ``cls`` typed into number boxes."""
    return [n for n in cls.parameter_names() if type(cls.param[n]) in _TYPED]


def _editable(cls: type[figures.PaperFigure]) -> figures.PaperFigure:
    """The instance of figure ``cls`` the widgets edit: its numbers' bounds lifted on this instance (the
    class keeps them, and :func:`buviz.figures.render` applies them), so a typed value out of range
    reaches the gallery and is reported instead of being clamped."""
    fig = cls()
    for n in _numbers(cls):
        fig.param[n].bounds = None
    return fig


def out_of_range(fig: figures.PaperFigure) -> dict[str, str]:
    """The number parameters of ``fig`` its class refuses (its declared bounds, checked by
    :meth:`~buviz.figures.PaperFigure.set` on a fresh instance): name → what it accepts."""
    cls, probe, bad = type(fig), type(fig)(), {}
    for n in _numbers(cls):
        try:
            probe.set(n, getattr(fig, n))
        except InvalidParameterError:
            bad[n] = cls.accepts_text(n)
    return bad


def parameter_widgets(fig: param.Parameterized) -> pn.Param:
    """The widgets of a figure instance's parameters, made by :class:`panel.Param` from their declarations
    (type, bounds, choices, defaults; the docs as tooltips) and linked to the instance both ways."""
    return pn.Param(fig, parameters=type(fig).parameter_names(), widgets=_typed(fig), show_name=False,
                    sizing_mode="stretch_width")


def render_within(key: str, width: int | None = None, **params):
    """:func:`buviz.figures.render` of figure ``key`` with ``params``, drawn at most ``width`` pixels
    wide on screen: a figure wider at its export size (:data:`buviz.plots.style.SCREEN_DPI` pixels per
    inch) is drawn narrower, each panel keeping its share of the width and the export's height (a height
    scaled down too left Zheng et al.'s Fig 1 at 640 px with plot frames 91 px high under its titles and
    legends); None: at its export size.

    Raises
    ------
    ValueError
        If ``width`` is not a positive number of pixels.
    """
    if width is not None and not (isinstance(width, int) and width > 0):
        raise ValueError(f"width must be a positive number of pixels or None, got {width!r}")
    obj = figures.render(key, **params)
    size = figures.get(key).size
    if width is not None and size[0] * style.SCREEN_DPI > width:
        obj = style.screen_sized(obj, (width / style.SCREEN_DPI, size[1]))
    return obj


class FigureGallery(pn.viewable.Viewer):
    """The registered figures grouped by paper; the chosen one's parameters, a Render button, the figure
    (Bokeh) and its export.

    Parameters
    ----------
    figure : str
        Key of the figure shown (a :data:`buviz.figures.REGISTRY` key).
    keys : list of str, optional
        The figures the menu offers (default: every registered figure), e.g. a paper's schematics in
        the tab where they teach.
    result : str, default="gallery"
        The job bus slot of the rendered figure (:attr:`FigureGallery.rendered`): galleries of one session
        with different slots keep their own renders (on one slot, a render cancels the other's).
    bus : JobBus, optional
        The session's job bus (default: one of the gallery's own).
    screen_width : int, optional
        The widest the figure is drawn on screen (px), at its export's height
        (:func:`render_within`); default: at its export size.
    first_lane : {"heavy", "compute"}, default="heavy"
        The runner lane of the first drawing (:meth:`render_once`): ``compute`` where the first figure at
        its default parameters takes a fraction of a second, so that it never waits behind a running sweep
        (Ha et al.'s Fig 1 in the *Error vs −Û* tab, which starts one). *Render* always uses the heavy
        lane: with parameters of the user's choosing a figure may fit for minutes, which in the compute lane
        would hold up every session's γ steps.
    """

    figure = param.Selector(default="discrete_fig2", objects=list(figures.REGISTRY), doc="figure shown")
    keys = param.List(default=None, item_type=str, allow_None=True, constant=True,
                      doc="The figures the menu offers (None: every registered figure)")
    result = param.String(default="gallery", constant=True,
                          doc="The bus slot of the rendered figure (galleries of a session: one slot each)")
    screen_width = param.Integer(default=None, allow_None=True, bounds=(100, None), constant=True,
                                 doc="Widest the figure is drawn on screen (px; None: at its export size)")
    bus = param.ClassSelector(class_=JobBus, default=None, precedence=-1, constant=True,
                              doc="The session's job bus, which renders the figure in the background")
    first_lane = param.Selector(default="heavy", objects=["compute", "heavy"], constant=True, doc=(
        "The runner lane of the first drawing (render_once): ``compute`` for a first figure of a fraction of "
        "a second, which then need not wait for a sweep; Render always uses the heavy lane"))

    def __init__(self, **params):
        keys = params.get("keys")
        if keys is not None:
            unknown = [k for k in keys if k not in figures.REGISTRY]
            if unknown or not keys:
                raise ValueError(f"keys: {unknown or 'an empty list'} not among the registered figures "
                                 f"(buviz.figures.REGISTRY)")
            params.setdefault("figure", keys[0])
        if params.get("bus") is None:
            params["bus"] = JobBus()
        super().__init__(**params)
        #: the figure last rendered (its key, the HoloViews object or DataFrame, the render's state)
        self.rendered = Requested(self.bus, self.result, None, lane="heavy")  # render() names the drawing
        offered = list(figures.REGISTRY) if self.keys is None else list(self.keys)
        self.param.figure.objects = offered
        if self.figure not in offered:
            raise ValueError(f"figure: {self.figure!r} is not among the figures offered ({offered})")
        groups = {title: {menu_label(figures.REGISTRY[k]): k for k in offered
                          if figures.REGISTRY[k].paper == paper} for paper, title in PAPER_TITLES.items()}
        groups = {title: menu for title, menu in groups.items() if menu}
        self.select = pn.widgets.Select(label="Figure", groups=groups, value=self.figure, sizing_mode="stretch_width")
        self.select.param.watch(lambda e: setattr(self, "figure", e.new), "value")
        #: the chosen figure's parameters (a figure instance, set by the widgets)
        self.values_of = self._edit(figures.get(self.figure))
        self.param_pane = parameter_widgets(self.values_of)
        self.render_button = pn.widgets.Button(label="Render", color="primary", sizing_mode="stretch_width")
        self.render_button.on_click(self._on_render)
        self.info = pn.pane.Markdown(sizing_mode="stretch_width", css_classes=["buviz-gallery-info"])
        self.message = pn.pane.Alert(alert_type="danger", visible=False, sizing_mode="stretch_width",
                                     css_classes=["buviz-gallery-message"])
        # fixed size: figures.render draws each figure at its export size (style.screen_sized), its panels
        # in the export's proportions, so that no plot frame is squeezed by its axes and legend
        self.plot = pn.pane.HoloViews(None, backend="bokeh", min_height=450, linked_axes=False,
                                      css_classes=["buviz-gallery-plot"])
        self.plot_box = pn.Column(self.plot)
        self.shown = pn.pane.Markdown("", sizing_mode="stretch_width", css_classes=["buviz-gallery-shown"])
        # a table as text (buviz.plots.tables): no index column, the decimals that matter, empty cells said
        self.table = pn.pane.HTML("", visible=False, sizing_mode="stretch_width", stylesheets=[_TABLE_CSS],
                                  css_classes=["buviz-gallery-table"])
        self.downloads = pn.Row(*[self._download(fmt) for fmt in EXPORT_FORMATS])
        self.rendered.param.watch(self._on_rendered, ["key", "value", "state"])
        self._show_parameters()

    # -- parameters ------------------------------------------------------------------------------
    @param.depends("figure", watch=True)
    def _show_parameters(self) -> None:
        cls = figures.get(self.figure)
        if self.select.value != self.figure:
            self.select.value = self.figure
        if type(self.values_of) is not cls:
            self.values_of = self._edit(cls)
            self.param_pane.param.update(object=self.values_of, parameters=cls.parameter_names(),
                                         widgets=_typed(self.values_of))
        self._check_ranges()
        formerly = f" (formerly `{cls.alias}`)" if cls.alias else ""
        self.info.object = (f"**{cls.key}**{formerly}: {cls.description}  \n"
                            f"<small>{cls.citation()}</small>")

    def _edit(self, cls: type[figures.PaperFigure]) -> figures.PaperFigure:
        fig = _editable(cls)
        fig.param.watch(self._check_ranges, _numbers(cls))
        return fig

    def _check_ranges(self, *events) -> None:
        """Say which typed numbers are out of range (the value stays in its box; Render refuses it)."""
        bad = out_of_range(self.values_of)
        if bad:
            self._alert("Out of range, so Render will refuse it: " + "; ".join(
                f"{n} = {getattr(self.values_of, n)!r} (accepts {text})" for n, text in bad.items()))
        elif self.message.visible and str(self.message.object).startswith("Out of range"):
            self._alert(None)

    @property
    def widgets(self) -> dict[str, pn.widgets.Widget]:
        """The widget of each parameter of the chosen figure, by parameter name."""
        return dict(zip(type(self.values_of).parameter_names(), self.param_pane.layout.objects, strict=True))

    def values(self) -> dict:
        """The parameter values the widgets hold (only those that differ from the defaults)."""
        fig = self.values_of
        return {n: getattr(fig, n) for n in type(fig).parameter_names() if getattr(fig, n) != fig.param[n].default}

    # -- rendering -------------------------------------------------------------------------------
    @property
    def rendered_key(self) -> str | None:
        """The key of the figure last rendered (:attr:`rendered`'s key), or None."""
        return self.rendered.key

    @property
    def obj(self):
        """The figure last rendered (HoloViews object or DataFrame), or None."""
        return self.rendered.value

    def _alert(self, error: Exception | str | None) -> None:
        if error is not None:
            self.message.object = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
        self.message.visible = error is not None

    @property
    def rendering(self) -> bool:
        """Whether a render is under way (:attr:`rendered`'s state)."""
        return self.rendered.running

    def _on_rendered(self, *events) -> None:
        """A figure was delivered: show it (a failed render delivers none: the last one stays and the
        failure is said); the Render button shows whether one is under way."""
        if any(e.name != "state" for e in events):
            self._show(self.rendered_key, self.obj)
        if any(e.name == "state" for e in events):
            self.render_button.loading = self.rendered.running
            if self.rendered.error is not None:
                self._alert(f"Could not render: {self.rendered.error}")

    def _show(self, key: str, obj) -> None:
        try:
            self._draw(obj)
        except Exception as exc:  # a figure Panel cannot convert: said, and the app keeps running
            self._alert(exc)
            return
        self._alert(None)
        self.shown.object = f"<small>Shown: `{key}`</small>"

    def _draw(self, obj) -> None:
        if isinstance(obj, pd.DataFrame):
            # the plot pane is emptied and its box hidden, never the pane itself: toggling a HoloViews
            # pane's ``visible`` makes Panel pass its design to the Bokeh figure (AttributeError 'design')
            self.plot.object, self.plot_box.visible = None, False
            # the caption (the paper's claim and buviz's verdict) is the info line above
            self.table.object, self.table.visible = table_html(obj), True
        else:
            self.table.object, self.table.visible = "", False
            self.plot.object, self.plot_box.visible = obj, True  # at its export size (figures.render)

    def render(self, *, lane: str = "heavy") -> bool:
        """Build the chosen figure with the widgets' values (in the background, in runner lane ``lane``,
        kept by :attr:`rendered`) and show it when it arrives; on failure keep the last figure and show
        the error. Not served, :meth:`buviz.app.bus.JobBus.wait` waits for it. Returns whether it was
        submitted (False: a render under way, or a value out of range, said in the message)."""
        if self.rendering:
            return False
        if out_of_range(self.values_of):
            self._check_ranges()  # says which, and nothing is built
            return False
        key = self.figure
        job = self.rendered.request(key, fn=functools.partial(render_within, key, self.screen_width, **self.values()),
                                    lane=lane, label=f"figure {key}")
        return not job.cancelled  # submitted (a closed page's is not): the figure or the error comes later

    def render_once(self) -> None:
        """Draw the chosen figure if none has been drawn nor is being drawn: what a tab or card that holds
        the gallery calls when it first opens (opened again, it shows what it has)."""
        if self.rendered_key is None and not self.rendering:
            self.render(lane=self.first_lane)

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
                self._alert(exc)
                return None

        fd.callback = callback
        return fd

    # -- layout ----------------------------------------------------------------------------------
    def sidebar(self) -> pn.Column:
        """The sidebar: figure selector, parameters, Render button, exports."""
        return pn.Column(self.select, self.param_pane, self.render_button, self.downloads,
                         sizing_mode="stretch_width")

    def main(self) -> pn.Column:
        """The main area: description and citation, error message, the figure."""
        return pn.Column(self.info, self.message, self.shown, self.plot_box, self.table, sizing_mode="stretch_width",
                         styles={"overflow-x": "auto"})

    def stacked(self) -> pn.Column:
        """Controls above the figure, for a gallery inside a tab whose sidebar holds other controls: the
        selector, Render and exports beside the figure's parameters, then :meth:`main`."""
        return pn.Column(pn.Row(pn.Column(self.select, self.render_button, self.downloads, width=320),
                                pn.Column(self.param_pane, width=300)), self.main(), sizing_mode="stretch_width")

    def schematics_tabs(self, *others: tuple[str, object]) -> pn.Tabs:
        """Dynamic sub-tabs: ``others`` ((name, panel) pairs), then this gallery (:meth:`stacked`) as
        *Schematics*, which draws its figure when it first opens (:meth:`render_once`). The tabs that hold
        a paper's schematics (Extrapolation, Error vs −Û) are built by this one method."""
        tabs = pn.Tabs(*others, (SCHEMATICS_TAB, self.stacked()), dynamic=True, sizing_mode="stretch_width")
        last = len(others)
        tabs.param.watch(lambda event: event.new == last and self.render_once(), "active")
        return tabs

    def __panel__(self):
        return pn.Row(pn.Column(self.sidebar(), width=320), self.main())
