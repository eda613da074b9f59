"""Interactive charts: plotly figures and altair charts as the MIME types Jupyter uses.

A figure or chart that is a cell's last value, passed to `display()`, or shown with `fig.show()`
(plotly) or `chart.show()` (altair) becomes a `displays` entry of its JSON spec, as text, and a
`text/plain` summary after it. The host renders the spec in a frame that cannot reach the page or
the network (docs/charts.md). A spec over `maxChartBytes` is not sent: the summary says why.

Nothing here imports plotly or altair: they are recognised in `sys.modules`, and their `show` is
pointed here only once the user's code has imported them (`install_chart_hooks`).
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

from .after_import import after_import
from .context import DISPATCHER
from .protocol_data import LIMITS
from .result import Display, MimeBundle

PLOTLY_MIME = "application/vnd.plotly.v1+json"
VEGALITE_MIME = "application/vnd.vegalite.v5+json"
CHART_MIMES = (PLOTLY_MIME, VEGALITE_MIME)
MAX_CHART_BYTES = LIMITS["maxChartBytes"]


def chart_bundle(obj: object) -> MimeBundle | None:
    """The chart MIME bundle of a plotly figure or altair chart; None for anything else."""
    if _is_plotly_figure(obj):
        return _plotly_bundle(obj)
    if _is_altair_chart(obj):
        return _altair_bundle(obj)
    return None


def chart_displays(bundle: MimeBundle) -> list[Display]:
    """The spec first (if there is one), then the text fallback."""
    order = [*CHART_MIMES, "text/plain"]
    return [Display(mime=mime, data=bundle[mime]) for mime in order if mime in bundle]


def _is_plotly_figure(obj: object) -> bool:
    base = sys.modules.get("plotly.basedatatypes")
    figure_type = getattr(base, "BaseFigure", None)
    return isinstance(figure_type, type) and isinstance(obj, figure_type)


def _is_altair_chart(obj: object) -> bool:
    api = sys.modules.get("altair.vegalite.v5.api")
    chart_type = getattr(api, "TopLevelMixin", None)
    return isinstance(chart_type, type) and isinstance(obj, chart_type)


def _plotly_bundle(figure: object) -> MimeBundle:
    """`figure` is a plotly Figure or the dict plotly's renderers are given."""
    try:
        pio: Any = importlib.import_module("plotly.io")
        spec = pio.to_json(figure, validate=False, remove_uids=True)
        parsed = json.loads(spec)
    except Exception as exc:
        return {"text/plain": f"plotly figure (could not be turned into JSON: {_say(exc)})"}
    return _capped(PLOTLY_MIME, spec, plotly_summary(parsed))


def _altair_bundle(chart: Any) -> MimeBundle:
    try:
        parsed = chart.to_dict()
        spec = json.dumps(parsed, allow_nan=False)
    except Exception as exc:
        return {"text/plain": f"altair chart (could not be turned into a spec: {_say(exc)})"}
    return _capped(VEGALITE_MIME, spec, vegalite_summary(parsed))


def _capped(mime: str, spec: str, summary: str) -> MimeBundle:
    size = len(spec.encode())
    if size > MAX_CHART_BYTES:
        cap = MAX_CHART_BYTES / 1e6
        note = f"{summary} (not shown: its spec is {size / 1e6:.1f} MB, over the {cap:.0f} MB cap)"
        return {"text/plain": note}
    return {mime: spec, "text/plain": summary}


def _say(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:500]


def plotly_summary(spec: dict[str, Any]) -> str:
    """`plotly figure: scatter, 1 trace, 100 points, title 'Sales'`."""
    traces = [t for t in spec.get("data") or [] if isinstance(t, dict)]
    kinds = sorted({str(t.get("type") or "scatter") for t in traces}) or ["empty"]
    points = sum(_trace_points(t) for t in traces)
    parts = [f"plotly figure: {', '.join(kinds)}", f"{len(traces)} trace(s)", f"{points} points"]
    title = _title(spec.get("layout", {}).get("title"))
    return ", ".join(parts + ([f"title {title!r}"] if title else []))


def vegalite_summary(spec: dict[str, Any]) -> str:
    """`altair chart: point, 3 field(s), 50 rows, title 'Sales'`."""
    mark = spec.get("mark")
    kind = mark.get("type") if isinstance(mark, dict) else mark
    kind = kind or ("layered" if "layer" in spec else "composed")
    values = (spec.get("data") or {}).get("values") if isinstance(spec.get("data"), dict) else None
    datasets = spec.get("datasets") or {}
    rows = len(values) if isinstance(values, list) else sum(len(v) for v in datasets.values())
    fields = len(spec.get("encoding") or {})
    parts = [f"altair chart: {kind}", f"{fields} encoding(s)", f"{rows} rows"]
    title = _title(spec.get("title"))
    return ", ".join(parts + ([f"title {title!r}"] if title else []))


def _trace_points(trace: dict[str, Any]) -> int:
    for key in ("x", "y", "values", "z", "lat", "r"):
        column = trace.get(key)
        if isinstance(column, list):
            return len(column)
        if isinstance(column, dict) and "bdata" in column:  # plotly's typed-array encoding
            shape = column.get("shape")
            return _count(shape) if shape else _typed_length(column)
    return 0


_ITEM_BYTES = {"f8": 8, "f4": 4, "i4": 4, "u4": 4, "i2": 2, "u2": 2, "i1": 1, "u1": 1}


def _typed_length(column: dict[str, Any]) -> int:
    data = str(column.get("bdata", ""))
    size = _ITEM_BYTES.get(str(column.get("dtype")), 8)
    return (len(data) * 3 // 4 - data.count("=")) // size


def _count(shape: object) -> int:
    total = 1
    for part in str(shape).split(","):
        total *= int(part) if part.strip().isdigit() else 1
    return total


def _title(title: object) -> str:
    if isinstance(title, dict):
        title = title.get("text")
    if isinstance(title, list):
        title = " ".join(str(t) for t in title)
    return str(title)[:200] if title else ""


def _publish(bundle: MimeBundle) -> None:
    run = DISPATCHER.current()
    if run is not None:
        run.displays.extend(chart_displays(bundle))


def _plotly_renderers_loaded(module: ModuleType) -> None:
    """Register a renderer that publishes here, and make it the default: `fig.show()` uses it."""
    external: Any = importlib.import_module("plotly.io._base_renderers").ExternalRenderer

    class WasmboxRenderer(external):  # type: ignore[misc]
        def render(self, fig_dict: dict[str, Any]) -> None:
            _publish(_plotly_bundle(fig_dict))

    renderers: Any = module.renderers
    renderers["wasmbox"] = WasmboxRenderer()
    renderers.default = "wasmbox"


def _altair_loaded(module: ModuleType) -> None:
    """`chart.show()` asks IPython to display; here it publishes the chart instead."""

    def show(self: object) -> None:
        _publish(_altair_bundle(self))

    module.TopLevelMixin.show = show


_AFTER_IMPORT: dict[str, Callable[[ModuleType], None]] = {
    "plotly.io._renderers": _plotly_renderers_loaded,
    "altair.vegalite.v5.api": _altair_loaded,
}


def install_chart_hooks() -> None:
    """Once per interpreter; a module already imported gets its hook now."""
    after_import(_AFTER_IMPORT)
