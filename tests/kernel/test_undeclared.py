"""The packages a cell's imports need beyond what they declare (wasmbox_kernel.undeclared)."""

from __future__ import annotations

import pytest
from wasmbox_kernel.undeclared import undeclared_packages


@pytest.mark.parametrize(
    "code",
    [
        "import plotly.express as px\npx.scatter(x=[1], y=[2])",
        "from plotly import express as px",
        "from plotly.express import scatter",
        "def chart():\n    import plotly.express\n    return plotly.express",
        "import \uff50lotly.express",  # a fullwidth first letter: Python reads plotly
        "import plotly.figure_factory as ff",
    ],
)
def test_plotly_express_brings_numpy_and_pandas(code: str) -> None:
    assert undeclared_packages(code) == ["numpy", "pandas"]


@pytest.mark.parametrize(
    "code",
    [
        "import plotly.graph_objects as go",
        "import numpy as np\nx = 'plotly.express'",
        "from . import express",
        "import plotly.express as px\nif True print(1)",
        "1 + 1",
    ],
)
def test_other_cells_need_nothing_more(code: str) -> None:
    assert undeclared_packages(code) == []
