"""The code-execution agent end to end: a scripted model, the real page, the real sandbox.

Each test asserts what the user sees and what the model received back from the sandbox.
"""

from __future__ import annotations

import re

import pytest

from tests.browser.app.conftest import AppPage, ScriptedModel, final
from tests.support.fake_openai import stream_reply, tool_call_stream_reply

pytestmark = pytest.mark.browser


def test_fibonacci_primes(app_page: AppPage, agent_app: str, model: ScriptedModel) -> None:
    code = (
        "fib = [0, 1]\nwhile len(fib) < 20:\n    fib.append(fib[-1] + fib[-2])\n"
        "def is_prime(n):\n    return n > 1 and all(n % d for d in range(2, int(n ** 0.5) + 1))\n"
        "print(sorted({f for f in fib if is_prime(f)}))"
    )
    model.script(
        tool_call_stream_reply(code), final("The primes are 2, 3, 5, 13, 89, 233 and 1597.")
    )
    app_page.open(agent_app).ask(
        "Calculate the first 20 Fibonacci numbers and find which ones are prime"
    )

    assert model.tool_results()[0]["stdout"].strip() == "[2, 3, 5, 13, 89, 233, 1597]"
    page = app_page.page
    assert "[2, 3, 5, 13, 89, 233, 1597]" in page.get_by_label("stdout").first.inner_text()
    assert page.get_by_text("The primes are 2, 3, 5, 13, 89, 233 and 1597.").is_visible()
    app_page.screenshot("fibonacci-primes")


def test_system_prompt_describes_the_real_environment(
    app_page: AppPage, agent_app: str, model: ScriptedModel
) -> None:
    model.script(final("Hello."))
    app_page.open(agent_app).ask("hi")
    system = model.requests()[0]["messages"][0]
    assert system["role"] == "system"
    assert "Python 3.12.7" in system["content"]
    assert "numpy 2.0.2" in system["content"] and "pandas 2.2.3" in system["content"]
    assert "no network" in system["content"].lower()
    assert "30 seconds" in system["content"]
    assert "32-bit" in system["content"]  # numpy's default integer on wasm32
    assert model.requests()[0]["tools"][0]["function"]["name"] == "run_python"


def test_sum_of_primes_below_100(app_page: AppPage, agent_app: str, model: ScriptedModel) -> None:
    code = "print(sum(n for n in range(2, 100) if all(n % d for d in range(2, n))))"
    model.script(tool_call_stream_reply(code), final("The sum is 1060."))
    app_page.open(agent_app).ask("What is the sum of all prime numbers below 100?")
    assert model.tool_results()[0]["stdout"].strip() == "1060"
    assert app_page.page.get_by_text("The sum is 1060.").is_visible()


def test_sales_growth_with_pandas(app_page: AppPage, agent_app: str, model: ScriptedModel) -> None:
    code = (
        "import io, pandas as pd\n"
        "csv = 'date,revenue\\n2026-01-01,12400\\n2026-01-02,9800\\n2026-01-03,15200\\n"
        "2026-01-04,11100\\n2026-01-05,18900\\n'\n"
        "df = pd.read_csv(io.StringIO(csv), parse_dates=['date'])\n"
        "df['growth_pct'] = (df.revenue.pct_change() * 100).round(2)\n"
        "print(df.to_string(index=False))"
    )
    model.script(tool_call_stream_reply(code), final("Growth was uneven."))
    app_page.open(agent_app).ask("Here are five days of sales; what is the day-over-day growth?")
    stdout = model.tool_results()[0]["stdout"]
    for growth in ("-20.97", "55.10", "-26.97", "70.27"):
        assert growth in stdout


def test_uploaded_customers_top_five(
    app_page: AppPage, agent_app: str, model: ScriptedModel, tmp_path
) -> None:
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(7)
    customers = pd.DataFrame(
        {
            "customer": [f"C{n:03d}" for n in rng.integers(0, 40, 600)],
            "revenue": (rng.random(600) * 1000).round(2),
        }
    )
    path = tmp_path / "customers.csv"
    customers.to_csv(path, index=False)
    expected = customers.groupby("customer").revenue.sum().nlargest(5).index.tolist()

    app_page.open(agent_app)
    app_page.page.get_by_label("Upload files").set_input_files(str(path))
    app_page.page.get_by_role("listitem").filter(has_text="customers.csv").wait_for()
    code = (
        "import pandas as pd\ndf = pd.read_csv('customers.csv')\n"
        "print(df.groupby('customer').revenue.sum().nlargest(5).index.tolist())"
    )
    model.script(tool_call_stream_reply(code), final("Those are the top five."))
    app_page.ask("Who are the top 5 customers by revenue?")

    assert model.tool_results()[0]["stdout"].strip() == str(expected)
    system = model.requests()[0]["messages"][0]["content"]
    # The kernel's preview of the uploaded file, in the first request: columns, dtypes, rows.
    assert "a preview, not the whole data" in system
    assert '- "customers.csv" (' in system
    assert re.search(
        r'"customer" object \(text; \d\d distinct values in 200 rows, repeated\), '
        r'"revenue" float64',
        system,
    )


def test_self_repair_after_key_error(
    app_page: AppPage, agent_app: str, model: ScriptedModel
) -> None:
    setup = (
        "import pandas as pd\ndf = pd.DataFrame({'item': ['a', 'b'], 'unit_price': [2.5, 4.0]})\n"
    )
    model.script(
        tool_call_stream_reply(setup + "print(df['price'].sum())"),
        tool_call_stream_reply("print(list(df.columns))"),
        tool_call_stream_reply("print(df['unit_price'].sum())"),
        final("The total is 6.5."),
    )
    app_page.open(agent_app).ask("What is the total price?")

    first, columns, fixed = model.tool_results()
    assert first["outcome"] == "FAILED"
    assert first["error"]["name"] == "KeyError" and "'price'" in first["error"]["message"]
    # The repair hint, from the real exception: the columns, the closest first; shown in the page.
    hint = "Columns of the DataFrame that exist (closest first): 'unit_price', 'item'."
    assert first["error"]["hint"] == hint
    assert app_page.page.get_by_label("hint").first.inner_text() == f"Hint: {hint}"
    assert "<cell-" in first["error"]["traceback"]
    assert columns["stdout"].strip() == "['item', 'unit_price']"
    assert fixed["outcome"] == "OK" and fixed["stdout"].strip() == "6.5"
    assert app_page.page.get_by_label("traceback").first.is_visible()


def test_plot_then_follow_up_reuses_variables(
    app_page: AppPage, agent_app: str, model: ScriptedModel
) -> None:
    plot = (
        "import numpy as np, matplotlib.pyplot as plt\n"
        "data = np.random.default_rng(1).normal(size=500)\nplt.hist(data, bins=20)"
    )
    model.script(tool_call_stream_reply(plot), final("Here is the histogram."))
    app_page.open(agent_app).ask("Plot a histogram of 500 normal samples")
    image = app_page.page.get_by_role("img", name="figure produced by the code").first
    assert (image.get_attribute("src") or "").startswith("data:image/png;base64,")
    assert model.tool_results()[0]["images"].startswith("1 image")
    app_page.screenshot("plot")

    model.start = len(model.fake.received)
    model.script(
        tool_call_stream_reply("print(len(data), round(float(data.mean()), 3))"), final("Done.")
    )
    app_page.ask("Now tell me the count and mean of those same numbers")
    count, _mean = model.tool_results()[-1]["stdout"].split()
    assert count == "500"


def test_a_number_no_run_computed_is_asked_for_then_marked(
    app_page: AppPage, agent_app: str, model: ScriptedModel
) -> None:
    model.script(
        tool_call_stream_reply("import random\nsamples = [random.random() for _ in range(500)]"),
        final("There are 500 samples; their mean is 0.4987."),
        final("Their mean is 0.4987."),
    )
    app_page.open(agent_app).ask("Draw 500 random numbers and tell me their mean.")

    asked = model.requests()[2]["messages"][-1]
    assert asked["role"] == "user"
    assert "numbers that no run printed or returned: 0.4987." in asked["content"]  # 500: asked
    # The run showed nothing: its result carried the kernel's hint on an OK result.
    assert model.tool_results()[0]["hint"].startswith("The run printed nothing")
    page = app_page.page
    marks = page.locator("mark.ungrounded")
    assert marks.count() >= 1 and marks.last.inner_text() == "0.4987"
    assert marks.last.get_attribute("title") == "not computed by any run"
    assert page.get_by_text("Not computed by any run: 0.4987.").is_visible()


def test_a_reply_naming_plotly_starts_a_chart_frame_as_it_streams(
    app_page: AppPage, agent_app: str, model: ScriptedModel
) -> None:
    model.script(stream_reply(["I would chart this with plotly", " once the data is here."]))
    app_page.open(agent_app).ask("Chart the sales")
    page = app_page.page
    # No run, no chart: only the streamed text named the library (web/src/ui/chat-view.ts).
    assert page.locator("#transcript figure.chart").count() == 0
    spare = page.locator("iframe[data-bundle=plotly][aria-hidden=true]")
    spare.wait_for(state="attached", timeout=30_000)
    assert spare.count() == 1
    assert app_page.requests.foreign() == []
