"""`error.hint` and the result's `hint`, from real exceptions raised by cells in a real kernel."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def hint_of(result: Any) -> str:
    assert result["outcome"] == "OUTCOME_FAILED", result
    hint: str = result["error"]["hint"]
    assert "\n" not in hint
    return hint


def test_keyerror_on_a_dataframe_lists_its_columns_closest_first(
    make_kernel: Any, run: Any
) -> None:
    kernel = make_kernel()
    run(
        kernel,
        "import pandas as pd\n"
        "df = pd.DataFrame({'item': [1], 'unit_price': [2.5], 'qty_sold': [3]})",
    )
    hint = hint_of(run(kernel, "df['price'].sum()"))
    assert hint.startswith("Columns of the DataFrame that exist (closest first): 'unit_price'")
    assert "'item'" in hint and "'qty_sold'" in hint


def test_keyerror_inside_a_pandas_method(make_kernel: Any, run: Any) -> None:
    kernel = make_kernel()
    run(kernel, "import pandas as pd\ndf = pd.DataFrame({'customer': ['a'], 'revenue': [1]})")
    hint = hint_of(run(kernel, "df.groupby('customers')['revenue'].sum()"))
    assert "'customer'" in hint.split(":", 1)[1].split(",")[0]


def test_keyerror_on_a_series(make_kernel: Any, run: Any) -> None:
    kernel = make_kernel()
    hint = hint_of(
        run(
            kernel,
            "import pandas as pd\ns = pd.Series([1, 2], index=['north', 'south'])\ns['nort']",
        )
    )
    assert hint.startswith("Index labels of the Series that exist (closest first): 'north'")


def test_keyerror_on_a_dict_caps_the_keys(make_kernel: Any, run: Any) -> None:
    kernel = make_kernel()
    code = "d = {f'key{n}': n for n in range(50)}\nd['quantity'] = 0\nd['quantiti']"
    hint = hint_of(run(kernel, code))
    assert hint.startswith("Keys of the dict that exist (closest first): 'quantity'")
    assert hint.endswith("and 39 more.")


def test_nameerror_names_the_closest_variables(make_kernel: Any, run: Any) -> None:
    kernel = make_kernel()
    run(kernel, "sales_total = 5\nprices = [1]")
    hint = hint_of(run(kernel, "print(sale_total)"))
    assert hint.startswith("Names defined in this session closest to 'sale_total': 'sales_total'")


def test_nameerror_on_a_usual_alias_says_the_import(make_kernel: Any, run: Any) -> None:
    hint = hint_of(run(make_kernel(), "np.arange(3)"))
    assert hint.startswith("Import it first: import numpy as np")


def test_filenotfound_lists_the_files_that_exist(
    make_kernel: Any, run: Any, tmp_path: Path
) -> None:
    (tmp_path / "other.txt").write_text("x")
    (tmp_path / "sales_2026.csv").write_text("a\n1\n")
    hint = hint_of(run(make_kernel(), "open('path/to/sales.csv')"))
    assert hint == (
        "Files that exist (paths relative to the working directory): 'sales_2026.csv', 'other.txt'."
    )


def test_filenotfound_with_no_files_says_to_write_the_data_into_the_code(
    make_kernel: Any, run: Any
) -> None:
    hint = hint_of(run(make_kernel(), "import pandas as pd\npd.read_csv('data.csv')"))
    assert hint.startswith("The working directory has no files.")
    assert "write it into the code" in hint


def test_modulenotfound_names_the_nearest_package(make_kernel: Any, run: Any) -> None:
    hint = hint_of(run(make_kernel(policy="off"), "import pandass"))
    assert hint.startswith("'pandass' is not in this runtime and cannot be installed (no network)")
    assert "the nearest packages it has: 'pandas'" in hint


def test_other_errors_have_no_hint(make_kernel: Any, run: Any) -> None:
    result = run(make_kernel(), "1 / 0")
    assert "hint" not in result["error"]


def test_a_run_that_shows_nothing_gets_a_hint_on_its_ok_result(make_kernel: Any, run: Any) -> None:
    kernel = make_kernel()
    quiet = run(kernel, "x = sum(range(10))")
    assert quiet["outcome"] == "OUTCOME_OK" and quiet["error"] is None
    assert quiet["hint"].startswith("The run printed nothing and returned nothing")
    assert "hint" not in run(kernel, "x")
    assert "hint" not in run(kernel, "print(x)")
