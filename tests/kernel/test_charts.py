"""plotly figures and altair charts become the chart MIME types Jupyter uses, with a summary."""

from __future__ import annotations

import json

import pytest

PLOTLY = "application/vnd.plotly.v1+json"
VEGALITE = "application/vnd.vegalite.v5+json"

FIGURE = "import plotly.express as px\nfig = px.scatter(x=[1, 2, 3], y=[4, 5, 6], title='Growth')\n"
CHART = (
    "import altair as alt, pandas as pd\n"
    "chart = alt.Chart(pd.DataFrame({'a': [1, 2], 'b': [3, 4]}), title='Pairs')"
    ".mark_point().encode(x='a', y='b')\n"
)


@pytest.fixture(autouse=True)
def _libraries() -> None:
    pytest.importorskip("plotly")
    pytest.importorskip("altair")


def test_a_figure_as_the_last_value_is_its_plotly_spec_and_a_summary(run, kernel):
    value = run(kernel, FIGURE + "fig")["value"]
    assert list(value) == [PLOTLY, "text/plain"]
    spec = json.loads(value[PLOTLY])
    assert spec["data"][0]["type"] == "scatter"
    assert spec["layout"]["title"]["text"] == "Growth"
    assert value["text/plain"] == "plotly figure: scatter, 1 trace(s), 3 points, title 'Growth'"


def test_fig_show_and_display_publish_the_figure(run, kernel):
    result = run(kernel, FIGURE + "fig.show()\ndisplay(fig)")
    assert [d["mime"] for d in result["displays"]] == [PLOTLY, "text/plain"] * 2
    assert result["stderr"] == "" and result["value"] is None
    shown, displayed = result["displays"][0]["data"], result["displays"][2]["data"]
    assert json.loads(shown)["data"] == json.loads(displayed)["data"]


def test_pio_show_with_a_dict_publishes_too(run, kernel):
    code = "import plotly.io as pio\npio.show({'data': [{'type': 'bar', 'y': [1, 2]}]})"
    displays = run(kernel, code)["displays"]
    assert json.loads(displays[0]["data"])["data"][0]["type"] == "bar"
    assert displays[1]["data"] == "plotly figure: bar, 1 trace(s), 2 points"


def test_an_altair_chart_is_its_vegalite_spec(run, kernel):
    value = run(kernel, CHART + "chart")["value"]
    assert list(value) == [VEGALITE, "text/plain"]
    spec = json.loads(value[VEGALITE])
    assert spec["$schema"].startswith("https://vega.github.io/schema/vega-lite/v5")
    assert spec["mark"]["type"] == "point"
    assert value["text/plain"] == "altair chart: point, 2 encoding(s), 2 rows, title 'Pairs'"


def test_chart_show_and_display_publish_the_chart(run, kernel):
    result = run(kernel, CHART + "chart.show()\ndisplay(chart)")
    assert [d["mime"] for d in result["displays"]] == [VEGALITE, "text/plain"] * 2
    assert result["error"] is None


def test_a_chart_altair_refuses_says_why_in_its_text(run, kernel):
    code = (
        "import altair as alt, pandas as pd\n"
        "alt.Chart(pd.DataFrame({'a': range(6000)})).mark_point()"
    )
    value = run(kernel, code)["value"]
    assert list(value) == ["text/plain"]
    assert value["text/plain"].startswith("altair chart (could not be turned into a spec: MaxRows")


def test_a_spec_over_the_cap_is_text_only(run, kernel, monkeypatch):
    from wasmbox_kernel import charts

    monkeypatch.setattr(charts, "MAX_CHART_BYTES", 1000)
    value = run(
        kernel, "import plotly.graph_objects as go\ngo.Figure(go.Scatter(y=list(range(500))))"
    )["value"]
    assert list(value) == ["text/plain"]
    assert "not shown: its spec is" in value["text/plain"]
    assert value["text/plain"].startswith("plotly figure: scatter, 1 trace(s), 500 points")


def test_typed_array_columns_are_counted(run, kernel):
    code = (
        "import numpy as np, plotly.graph_objects as go\n"
        "go.Figure(go.Scatter(y=np.arange(10000.0)))"
    )
    value = run(kernel, code)["value"]
    assert "10000 points" in value["text/plain"]
