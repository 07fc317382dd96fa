"""LaTeX in the explorer's Markdown panes, kept intact for MathJax.

Panel's Markdown pane converts Markdown to HTML on the server (markdown-it) and the browser then
typesets the ``$$...$$`` spans with MathJax. Markdown knows nothing of LaTeX, so ``_{kl} ... _{kl}``
became ``<em>`` and ``\\{`` lost its backslash before MathJax saw the formula. :func:`keep_math` is a
markdown-it plugin that parses ``$...$`` / ``$$...$$`` spans (mdit-py-plugins' ``dollarmath``) and
writes each back verbatim (HTML-escaped) between ``$$`` delimiters, so Markdown never touches the
LaTeX. :func:`math_markdown` builds a pane with it; :func:`fix_math` retrofits existing panes.
"""

from __future__ import annotations

import re
from html import escape

import panel as pn

__all__ = ["keep_math", "math_markdown", "fix_math", "double_dollars"]

_SINGLE = re.compile(r"(?<![\$\\])\$(?!\$)")


def double_dollars(text: str) -> str:
    """``$x$`` -> ``$$x$$`` (spans already written ``$$x$$`` stay as they are)."""
    return _SINGLE.sub("$$", text)


def _tex(content: str) -> str:
    # < and > as TeX commands: the browser's HTML parsing would otherwise eat "<" spans before MathJax runs
    return escape(content.replace("<", r"\lt ").replace(">", r"\gt "), quote=False)


def _inline(self, tokens, idx, options, env):
    return "$$" + _tex(tokens[idx].content) + "$$"


def _block(self, tokens, idx, options, env):
    return "<p>$$" + _tex(tokens[idx].content.strip()) + "$$</p>\n"


def keep_math(md) -> None:
    """markdown-it plugin: ``$..$``/``$$..$$`` math passes through untouched, as ``$$..$$``."""
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    dollarmath_plugin(md, double_inline=True)
    for name in ("math_inline", "math_inline_double"):
        md.add_render_rule(name, _inline)
    for name in ("math_block", "math_block_label"):
        md.add_render_rule(name, _block)


def math_markdown(text: str, **kw) -> pn.pane.Markdown:
    """A Markdown pane whose ``$``/``$$`` formulas reach MathJax unchanged."""
    return pn.pane.Markdown(double_dollars(text), plugins=[keep_math], **kw)


def fix_math(obj):
    """Give every Markdown pane inside ``obj`` (a Panel layout) that holds ``$`` math the plugin."""
    for pane in obj.select(pn.pane.Markdown):
        text = pane.object
        if isinstance(text, str) and "$" in text and keep_math not in pane.plugins:
            pane.param.update(object=double_dollars(text), plugins=[*pane.plugins, keep_math])
    return obj
