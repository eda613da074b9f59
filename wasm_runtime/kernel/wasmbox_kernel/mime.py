"""MIME bundles for values and `display()`, the way IPython builds them (`_repr_*_` methods).

`text/plain` is always there (repr). Values that are themselves JSON (dict, list, str, int, float,
bool) also get `application/json` so the host can validate them against a schema.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

from .charts import chart_bundle, chart_displays
from .result import Display, MimeBundle

RICHNESS = (
    "application/vnd.plotly.v1+json",
    "application/vnd.vegalite.v5+json",
    "image/png",
    "image/svg+xml",
    "text/html",
    "text/markdown",
    "application/json",
    "text/plain",
)
"""Richest first: the order of `displays` entries for one object."""

_REPR_METHODS = {
    "image/png": "_repr_png_",
    "image/svg+xml": "_repr_svg_",
    "text/html": "_repr_html_",
    "text/markdown": "_repr_markdown_",
    "application/json": "_repr_json_",
}
_JSON_TYPES = (dict, list, str, int, float)
# Built-in types whose instances have no `_repr_*_` method and cannot be given one.
_PLAIN_TYPES = frozenset({int, float, str, bool, type(None), list, dict, tuple, set, bytes})


def mime_bundle(obj: object) -> MimeBundle:
    """All the representations of `obj` that can be computed; a failing `_repr_*_` is skipped.
    A plotly figure or altair chart gives its spec and a summary only (charts.py)."""
    if type(obj) in _PLAIN_TYPES:  # exactly these: no subclass, nothing to look up on them
        return _plain_bundle(obj)
    chart = chart_bundle(obj)
    if chart is not None:
        return chart
    bundle: MimeBundle = {}
    if not isinstance(obj, type):  # a class has the methods, unbound: not a representation
        bundle.update(_from_mimebundle(obj))
        for mime, method in _REPR_METHODS.items():
            if mime not in bundle:
                data = _call_repr(obj, method)
                if data is not None:
                    text = _as_text(mime, data)
                    if text is not None:
                        bundle[mime] = text
    if "application/json" not in bundle and isinstance(obj, _JSON_TYPES):
        text = _json_text(obj)
        if text is not None:
            bundle["application/json"] = text
    bundle["text/plain"] = _plain(obj)
    return bundle


def _plain_bundle(obj: object) -> MimeBundle:
    """`mime_bundle` of a built-in value, without looking for methods it cannot have."""
    bundle: MimeBundle = {}
    if isinstance(obj, _JSON_TYPES):
        text = _json_text(obj)
        if text is not None:
            bundle["application/json"] = text
    bundle["text/plain"] = _plain(obj)
    return bundle


def displays_for(obj: object) -> list[Display]:
    """One `displays` entry per MIME type of `obj`, richest first."""
    chart = chart_bundle(obj)
    if chart is not None:
        return chart_displays(chart)
    bundle = mime_bundle(obj)
    order = sorted(bundle, key=lambda m: RICHNESS.index(m) if m in RICHNESS else len(RICHNESS) - 1)
    return [Display(mime=mime, data=bundle[mime]) for mime in order]


def _call_repr(obj: object, method: str) -> object:
    try:
        function = getattr(obj, method, None)
        if not callable(function):
            return None
        return function()
    except Exception:
        return None


def _from_mimebundle(obj: object) -> MimeBundle:
    data = _call_repr(obj, "_repr_mimebundle_")
    if isinstance(data, tuple) and data:
        data = data[0]  # (data, metadata)
    if not isinstance(data, dict):
        return {}
    bundle: MimeBundle = {}
    for mime, value in data.items():
        if isinstance(mime, str):
            text = _as_text(mime, value)
            if text is not None:
                bundle[mime] = text
    return bundle


def _as_text(mime: str, data: object) -> str | None:
    if isinstance(data, tuple) and data:
        data = data[0]  # some `_repr_*_` return (data, metadata)
    if isinstance(data, bytes | bytearray):
        return base64.b64encode(data).decode("ascii")
    if isinstance(data, str):
        return data
    if mime.endswith("json"):
        return _json_text(data)
    return None


# json.dumps with an option builds a new encoder per call: a value's bundle is made every run.
_JSON_ENCODER = json.JSONEncoder(allow_nan=False)


def _json_text(obj: object) -> str | None:
    try:
        return _JSON_ENCODER.encode(obj)
    except (TypeError, ValueError, RecursionError):
        return None


def _plain(obj: object, text_of: Callable[[object], str] = repr) -> str:
    try:
        return text_of(obj)
    except Exception as exc:
        return f"<{type(obj).__name__} object (repr failed: {type(exc).__name__}: {exc})>"
