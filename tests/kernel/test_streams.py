"""stdout/stderr: captured per run, streamed in batches, capped with a marker; no stdin."""

from __future__ import annotations

import pytest
from wasmbox_kernel.streams import CappedWriter


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_stdout_and_stderr_are_captured(run, kernel):
    result = run(kernel, "import sys\nprint('out')\nprint('err', file=sys.stderr)")
    assert (result["stdout"], result["stderr"]) == ("out\n", "err\n")


def test_each_run_has_its_own_output(run, kernel):
    run(kernel, "print('first')")
    assert run(kernel, "print('second')")["stdout"] == "second\n"


def test_output_is_streamed_to_the_callback(run, kernel):
    chunks: list[tuple[str, str]] = []
    code = "import sys\nprint('a')\nprint('b', file=sys.stderr)"
    run(kernel, code, on_stream=lambda name, text: chunks.append((name, text)))
    assert "".join(t for n, t in chunks if n == "stdout") == "a\n"
    assert "".join(t for n, t in chunks if n == "stderr") == "b\n"


def test_writes_are_batched_by_size():
    chunks: list[str] = []
    clock = FakeClock()
    writer = CappedWriter(
        "stdout", 1000, on_stream=lambda _, text: chunks.append(text), batch_bytes=10, clock=clock
    )
    for _ in range(5):
        writer.write("abcd")
    assert chunks == ["abcdabcdabcd"]  # 12 bytes reached the batch size; 8 are pending
    writer.flush()
    assert chunks == ["abcdabcdabcd", "abcdabcd"]


def test_writes_are_batched_by_interval():
    chunks: list[str] = []
    clock = FakeClock()
    writer = CappedWriter(
        "stdout", 1000, on_stream=lambda _, t: chunks.append(t), interval_s=0.05, clock=clock
    )
    writer.write("a")
    clock.now = 0.06
    writer.write("b")
    assert chunks == ["ab"]


@pytest.mark.parametrize(
    ("writes", "kept"),
    [
        pytest.param(["x" * 15], "x" * 10, id="one-big-write"),
        pytest.param(["x" * 6, "y" * 6, "z"], "x" * 6 + "y" * 4, id="over-across-writes"),
        pytest.param(["é" * 6], "é" * 5, id="utf8-bytes-not-chars"),
        pytest.param(["abc", "€" * 4], "abc" + "€" * 2, id="no-split-character"),
    ],
)
def test_cap_keeps_at_most_the_limit_in_bytes(writes, kept):
    writer = CappedWriter("stdout", 10)
    for text in writes:
        writer.write(text)
    assert writer.truncated
    assert writer.getvalue() == kept + "\n[wasmbox: stdout truncated after 10 bytes]\n"


def test_marker_is_streamed_once_and_nothing_after_it():
    chunks: list[str] = []
    writer = CappedWriter("stderr", 4, on_stream=lambda _, t: chunks.append(t))
    for _ in range(3):
        writer.write("abcdef")
    writer.flush()
    assert "".join(chunks) == "abcd\n[wasmbox: stderr truncated after 4 bytes]\n"


def test_a_50_megabyte_print_is_capped(run, kernel):
    result = run(kernel, "print('x' * 50_000_000)")
    assert result["truncated"] is True
    assert result["stdout"].endswith("\n[wasmbox: stdout truncated after 1000000 bytes]\n")
    assert len(result["stdout"]) < 1_000_100


def test_stderr_cap_is_its_own(run, make_kernel):
    kernel = make_kernel(stderr_limit=5)
    result = run(kernel, "import sys\nprint('hello world', file=sys.stderr)\nprint('fine')")
    assert result["stderr"].startswith("hello\n[wasmbox: stderr truncated after 5 bytes]")
    assert (result["stdout"], result["truncated"]) == ("fine\n", True)


def test_a_broken_stream_listener_does_not_fail_the_run(run, kernel):
    def listener(name: str, text: str) -> None:
        raise RuntimeError("listener is gone")

    result = run(kernel, "print('a')\n'done'", on_stream=listener)
    assert (result["outcome"], result["stdout"]) == ("OUTCOME_OK", "a\n")


def test_input_raises_a_clear_error_instead_of_waiting(run, kernel):
    result = run(kernel, "input('name? ')")
    assert result["error"]["name"] == "EOFError"
    assert "no stdin" in result["error"]["message"]
