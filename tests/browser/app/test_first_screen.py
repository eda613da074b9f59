"""The empty chat's first screen: what runs where, and example questions on the shipped sample
data that a click asks (or, with no model, runs in the console). A chart answer exports to .ipynb
with its plotly bundle, as Jupyter renders it."""

from __future__ import annotations

import nbformat
import pytest

from tests.browser.app.conftest import AppPage, ScriptedModel, final
from tests.support.fake_openai import tool_call_stream_reply

pytestmark = pytest.mark.browser

PLOTLY = "application/vnd.plotly.v1+json"
SLOW_IMPORTS = "/?timeoutMs=300000"  # a first import of plotly on a loaded machine
ANSWER = (
    "import pandas as pd, plotly.express as px\n"
    "sales = pd.read_csv('sales.csv')\n"
    "print(len(sales))\n"
    "px.bar(sales.groupby('region', as_index=False)['revenue'].sum(), x='region', y='revenue')"
)


def test_an_example_question_asks_the_model_about_the_sample_and_exports_its_chart(
    app_page: AppPage, agent_app: str, model: ScriptedModel
) -> None:
    app_page.open(agent_app + SLOW_IMPORTS)
    page = app_page.page
    welcome = page.get_by_role("region", name="Getting started")
    where = welcome.locator(".where").inner_text()
    assert "runs on this device" in where and "this server's proxy" in where
    model.script(tool_call_stream_reply(ANSWER), final("The North sold the most."))
    with app_page.finishing(300_000):
        welcome.get_by_role("button").first.click()

    question = model.requests()[0]["messages"]
    assert any("Which region had the highest revenue" in str(m["content"]) for m in question)
    assert model.tool_results()[0]["stdout"].strip() == "96"
    assert welcome.count() == 0
    assert page.get_by_role("list", name="Files in the sandbox").get_by_text("sales.csv").count()
    page.locator("#transcript figure.chart[data-state=rendered]").wait_for(timeout=120_000)

    with page.expect_download() as download:
        page.get_by_role("button", name="Notebook (.ipynb)").click()
    notebook = nbformat.reads(download.value.path().read_text(), as_version=4)
    nbformat.validate(notebook)
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs]
    chart = next(o for o in outputs if PLOTLY in o.get("data", {}))
    assert chart.data[PLOTLY]["data"][0]["type"] == "bar"
    assert chart.data["text/plain"].startswith("plotly figure: bar")
    assert app_page.requests.foreign() == []


def test_without_a_model_an_example_runs_its_code_in_the_console(
    app_page: AppPage, console_app: str
) -> None:
    app_page.open(console_app + SLOW_IMPORTS)
    page = app_page.page
    welcome = page.get_by_role("region", name="Getting started")
    assert "no model is configured" in welcome.locator(".where").inner_text()
    with app_page.finishing(300_000):
        welcome.get_by_role("button", name="Plot monthly revenue per product").click()
    assert "alt.Chart(monthly" in page.get_by_label("Python code").input_value()
    page.locator("#transcript figure.chart[data-state=rendered]").wait_for(timeout=120_000)
    assert page.get_by_role("list", name="Files in the sandbox").get_by_text("sales.csv").count()
    app_page.screenshot("first-screen-console")
