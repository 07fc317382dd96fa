"""The explorer inside a Jupyter notebook: :func:`explorer` returns a notebook-sized :class:`NotebookExplorer`.

The served page (:func:`buviz.app.layout.build_app`) is a template with a 350 px sidebar; background
results reach it through its Bokeh document. A notebook has neither: this module lays the same
:class:`~buviz.app.layout.ExplorerApp` out in about 960 px (the controls in three columns above the
tabs) and takes the background results itself, only while background work is running.

How, without a document: the store's :class:`~buviz.app.session.SessionLink` keeps the results of
background jobs (sweep rows, finished jobs) until they are flushed. When a sweep starts or a job is
watched, the viewer starts a :class:`~buviz.app.session.BackgroundPoll` (in a notebook kernel an
asyncio task on the kernel's event loop, the loop that also handles the widgets' messages, so no
locking is needed; a *background* callback, so the busy indicator rests). Each tick flushes what
arrived, and Panel sends the changed views to the browser over the notebook's comm. The first tick
that finds nothing running flushes once more and stops; the next job starts it again.
"""

from __future__ import annotations

import asyncio
import contextlib

import panel as pn
import param

from buviz.app._panel_compat import (
    extension_loaded,
    jupyter_dist_url,
    resolve_detached_models_in_the_session,
    set_dist_url,
)
from buviz.app.controls import Controls
from buviz.app.layout import TITLE, ExplorerApp, build_store
from buviz.app.session import BackgroundPoll
from buviz.app.store import SessionStore

__all__ = ["NotebookExplorer", "explorer", "TITLE_NOTEBOOK"]

#: The heading shown above the notebook explorer.
TITLE_NOTEBOOK = f"### {TITLE}"

#: Width of the notebook explorer (px): fits a JupyterLab cell at 1280 px and wider windows.
NOTEBOOK_WIDTH = 960


class _NotebookRoot(pn.Column):
    """The notebook explorer's outer column: later updates take their stylesheets from the Jupyter server.

    ``pn.extension(inline=True)`` inlines the stylesheets of the first rendering only. Every later
    update that carries stylesheets (a tab opened, a Markdown pane or progress bar changed, a widget's
    ``loading``) is built anew by Panel as ``ImportedStyleSheet`` links to Panel's CDN
    (``reactive.py``: ``get_dist_path()`` is the CDN outside a server), then rewritten to the document's
    ``dist_url`` template variable if it has one; a notebook document has none, so a live JupyterLab
    asked ``cdn.holoviz.org`` for ``default.css``, ``native.css``, ``markdown.css`` and ``loading.css``
    and, offline, drew the new widgets unstyled. Setting ``dist_url`` once the first rendering is done
    (its inlined sheets stay) points those later links at the Jupyter server's copy of Panel's files.
    """

    def get_root(self, doc=None, comm=None, preprocess: bool = True):
        root = super().get_root(doc, comm, preprocess)
        if doc is not None and comm is not None and pn.config.inline:
            set_dist_url(doc, jupyter_dist_url())
            resolve_detached_models_in_the_session()  # a closed tab's panes too (_panel_compat, item 11)
        return root


class NotebookExplorer(pn.viewable.Viewer):
    """The explorer laid out for a notebook cell, with its own background-sweep poll.

    Parameters
    ----------
    app : ExplorerApp
        The explorer (state, views, controls) to show.
    poll_period : int, default=400
        Milliseconds between two polls of a running background sweep.
    width : int, default=960
        Width of the explorer (px).

    Attributes
    ----------
    store : SessionStore
        ``app.store``: the snapshot shown and everything else the explorer computed (read-only).
    controls : Controls
        The store's controls: set them (``ex.controls.n_train = 500``) as a widget would.
    polling : bool
        Whether the periodic poll is running (only while a sweep or sensitivity run is under way).
    """

    app = param.ClassSelector(class_=ExplorerApp, doc="The explorer shown")
    poll_period = param.Integer(default=400, bounds=(50, 10_000), doc="ms between polls of a running sweep")
    width = param.Integer(default=NOTEBOOK_WIDTH, bounds=(600, None), doc="Width of the explorer (px)")

    def __init__(self, **params):
        if "app" not in params:
            params["app"] = ExplorerApp()
        super().__init__(**params)
        store = self.store
        self._poll = BackgroundPoll(store.link, self.poll_period, after=self._push, busy=store.background_busy)
        store.link.on_watch.append(self._ensure_polling)
        store.param.watch(self._on_background, "snapshot")
        store.cv_sweep.param.watch(self._on_background, "state")
        store.sensitivity.param.watch(self._on_background, "state")
        store.param.watch(self._push_soon, "snapshot")
        app = self.app
        groups = app.control_groups
        column = dict(width=300, margin=(0, 10))
        self.control_row = pn.Row(
            pn.Column(groups["data"], groups["mixture"], groups["upload"], **column),
            pn.Column(groups["classifier"], groups["reset"], **column),
            pn.Column(groups["estimator"], **column),
        )
        # the Extrapolation and Discrete tabs bring their own controls; the boundary controls hide then
        app.boundary_controls.param.watch(lambda e: setattr(self.control_row, "visible", e.new), "visible")
        other = [pn.Row(c, width=self.width - 20) for c in app.sidebar[1:]]
        self._layout = _NotebookRoot(pn.pane.Markdown(TITLE_NOTEBOOK, margin=(0, 10)), self.control_row, *other,
                                     app.main(), width=self.width)

    @property
    def store(self) -> SessionStore:
        """The explorer's :class:`~buviz.app.store.SessionStore` (``snapshot``, ``cv_sweep.table`` ...)."""
        return self.app.store

    @property
    def controls(self) -> Controls:
        """The explorer's :class:`~buviz.app.controls.Controls` (``ex.controls.log2_gamma = 3``)."""
        return self.app.store.controls

    @property
    def polling(self) -> bool:
        return self._poll.running

    def __panel__(self):
        self._ensure_polling()
        return self._layout

    # ------------------------------------------------------------------ sending updates
    def _push(self) -> None:
        """Send the document's pending changes to the notebook page.

        Panel sends a change made inside a widget's callback when the callback returns; a HoloViews
        figure re-rendered by a stream may change its Bokeh models after that, and those changes then
        wait in the document (the map's B(Λ) stayed at the previous γ in JupyterLab).
        :func:`panel.io.push_notebook` sends them; with nothing pending it sends nothing.
        """
        pn.io.push_notebook(self._layout)

    def _push_soon(self, *events) -> None:
        self._push()
        with contextlib.suppress(RuntimeError):  # no event loop (plain Python): nothing is displayed
            asyncio.get_running_loop().call_later(0.05, self._push)

    # ------------------------------------------------------------------ the poll
    def _on_background(self, *events) -> None:
        self._ensure_polling()

    def _ensure_polling(self) -> None:
        """Start the background poll if background work is running and no poll is."""
        self._poll.start()

    def stop_polling(self) -> None:
        """Stop the background poll (it starts again with the next job)."""
        self._poll.stop()


def explorer(*, width: int = NOTEBOOK_WIDTH, inline: bool = True, poll_period: int = 400,
             **settings) -> NotebookExplorer:
    """The boundary-uncertainty explorer, sized for a notebook cell.

    Display the returned object (last expression of a cell): the controls sit above the tabs, every view
    follows the controls, and the background sweeps of the *Error vs −Û* and *Sensitivity* tabs fill in
    as they run (the explorer polls them itself; no server or template needed).

    Parameters
    ----------
    width : int, default=960
        Width of the explorer in pixels (a JupyterLab cell is about 1100 px wide at a 1400 px window).
    inline : bool, default=True
        Serve Panel's and Bokeh's JavaScript and CSS from inside the notebook, so that it works offline.
        Sets ``panel.config.inline`` and, in a notebook where ``pn.extension`` has not been called yet,
        loads the extension (with MathJax) in the cell's output.
    poll_period : int, default=400
        Milliseconds between polls of a running background sweep.
    **settings
        Initial controls, any parameter of :class:`~buviz.app.controls.Controls`: ``dataset``,
        ``n_train``, ``seed``, ``classifier``, ``log2_gamma``, ``log2_C``, ``epoch``, ``M``, ``K``,
        ``perturbation``, ``perturbation_mode``, ``tilde``, ``cv``, ``sweep_proposal1``, ...

    Returns
    -------
    NotebookExplorer
        A Panel viewer; ``.controls`` holds the controls, ``.store`` the current snapshot and
        everything else the explorer computed (``.state`` both, under one name).

    Raises
    ------
    ValueError
        If a setting is not a parameter of the state or is out of its bounds.

    See Also
    --------
    buviz.app.serve : the same explorer as a web app (``buviz serve``).

    Examples
    --------
    >>> import panel as pn
    >>> from buviz.app import explorer
    >>> pn.extension("mathjax", inline=True)  # doctest: +SKIP
    >>> ex = explorer(n_train=300, M=30)
    >>> ex.store.snapshot.ds.X_train.shape
    (300, 2)
    >>> ex  # doctest: +SKIP
    """
    valid = (set(Controls.param) | set(SessionStore.param)) - {"name", "controls"}
    unknown = sorted(set(settings) - valid)
    if unknown:
        raise ValueError(f"unknown explorer setting(s) {unknown}; valid: {sorted(valid)}")
    if inline:
        pn.config.inline = True
        if _in_notebook() and not extension_loaded():
            pn.extension("mathjax", inline=True)
    # a notebook computes each setting when it is applied (no background worker), and sweeps start
    # when a tab that needs them is opened, as on the served page
    settings.setdefault("auto_sweep", False)
    store = build_store(**settings)  # param checks each value's type and bounds (ValueError)
    if store.snapshot is None:
        raise ValueError(f"the explorer cannot start with these settings: {store.message}")
    return NotebookExplorer(app=ExplorerApp(store=store), poll_period=poll_period, width=width)


def _in_notebook() -> bool:
    """Whether the code runs in a Jupyter kernel (not a plain Python or IPython terminal)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None
