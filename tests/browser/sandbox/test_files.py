"""Files in and out of a sandbox: round trips, names that are refused, the request cap, and
files that survive the worker being killed."""

from __future__ import annotations

import pytest

from tests.browser.sandbox.conftest import SdkPage

pytestmark = pytest.mark.browser

READ_TEXT = "async ([id, p]) => new TextDecoder().decode(await wasmbox.Sandbox.get(id).readFile(p))"


def read_text(sdk: SdkPage, sandbox: str, path: str) -> str:
    text: str = sdk.page.evaluate(READ_TEXT, [sandbox, path])
    return text


def test_write_read_and_list(sdk: SdkPage, sandbox: str) -> None:
    sdk.call(sandbox, "writeFile", "data/in.txt", "hello")
    assert read_text(sdk, sandbox, "data/in.txt") == "hello"
    listed = {f["path"]: f for f in sdk.call(sandbox, "listFiles")}
    assert listed["data/in.txt"]["size"] == 5
    assert listed["data/in.txt"]["mime"] == "text/plain"


def test_files_go_in_with_execute_and_come_out_in_the_result(sdk: SdkPage, sandbox: str) -> None:
    code = "open('out.csv', 'w').write(open('in.csv').read().upper())"
    result = sdk.run(sandbox, code, files=[{"path": "in.csv", "data": "a,b\n"}])
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    assert [f["path"] for f in result["files"]] == ["out.csv"]
    assert read_text(sdk, sandbox, "out.csv") == "A,B\n"


def test_a_write_after_a_run_that_changed_no_file_is_reported(sdk: SdkPage, sandbox: str) -> None:
    """A run that changed no file skips the scan of the working directory (the worker counts
    the file system's changes, sandbox/file-changes.ts); a write through a file object an
    earlier run opened, in a later run, is still one of that run's files."""
    opened = sdk.run(sandbox, "late = open('late.txt', 'w')")
    assert [f["path"] for f in opened["files"]] == ["late.txt"]
    assert sdk.run(sandbox, "1 + 1")["files"] == []
    written = sdk.run(sandbox, "late.write('x'); late.flush()")
    assert written["files"] == [{"path": "late.txt", "size": 1, "mime": "text/plain"}]


def test_files_written_name_every_file_a_run_wrote(sdk: SdkPage, sandbox: str) -> None:
    """audit.filesWritten: the files a run kept and the 1,200 it removed again (past the 1,000
    that files read stop at), each path from the directory it was opened in."""
    code = (
        "import os\n"
        "os.makedirs('tmp', exist_ok=True)\n"
        "for i in range(1200):\n"
        "    open(f'tmp/{i}', 'w').close()\n"
        "    os.remove(f'tmp/{i}')\n"
        "os.chdir('tmp')\n"
        "open('kept.txt', 'w').write('1')\n"
        "open('../top.txt', 'w').write('2')\n"
        "os.chdir('..')"
    )
    result = sdk.run(sandbox, code)
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    assert [f["path"] for f in result["files"]] == ["tmp/kept.txt", "top.txt"]
    removed = [f"tmp/{i}" for i in range(1200)]
    assert result["audit"]["filesWritten"] == sorted([*removed, "tmp/kept.txt", "top.txt"])


@pytest.mark.parametrize(
    "path",
    [
        pytest.param("../escape.txt", id="dot-dot"),
        pytest.param("/etc/passwd", id="absolute"),
        pytest.param("a/./b.txt", id="dot-segment"),
        pytest.param("evil\u202etxt.py", id="bidi-override"),
        pytest.param("nul\x00.txt", id="control-char"),
        pytest.param("dir\\file.txt", id="backslash"),
        pytest.param("json.py", id="shadows-stdlib"),
        pytest.param("numpy.py", id="shadows-package"),
        pytest.param("pandas/__init__.py", id="shadows-package-dir"),
    ],
)
def test_hostile_names_are_refused(sdk: SdkPage, sandbox: str, path: str) -> None:
    with pytest.raises(Exception, match="invalid file name"):
        sdk.call(sandbox, "writeFile", path, "x")


def test_request_over_100_mb_is_refused(sdk: SdkPage, sandbox: str) -> None:
    message = sdk.page.evaluate(
        """async id => {
            const big = new Uint8Array(60 * 1024 * 1024);
            const files = [{ path: "a.bin", data: big }, { path: "b.bin", data: big }];
            try { await wasmbox.Sandbox.get(id).execute("1", { files }); return "accepted"; }
            catch (error) { return error.message; }
        }""",
        sandbox,
    )
    assert "100 MB" in message


def test_files_survive_a_hard_kill(c_loop_sdk: SdkPage) -> None:
    sdk = c_loop_sdk
    sandbox = sdk.create()
    sdk.call(sandbox, "writeFile", "given.txt", "from the host")
    sdk.call(sandbox, "writeFile", "emptied.txt", "emptied by a run")
    # Empty files are copied without reading them back: one made, one emptied by the run.
    made = "open('made.txt', 'w').write('by a run')\nopen('empty', 'w').close()\n"
    made += "open('emptied.txt', 'w').close()"
    assert sdk.run(sandbox, made)["outcome"] == "OUTCOME_OK"
    killed = sdk.run(sandbox, "sum(range(10**11))", timeoutMs=500)
    assert killed["stateLost"] is True
    after = sdk.run(
        sandbox,
        "import os\nprint(open('given.txt').read(), open('made.txt').read())\n"
        "print(os.path.getsize('empty'), os.path.getsize('emptied.txt'))",
    )
    assert after["stdout"] == "from the host by a run\n0 0\n"


def test_files_of_a_failed_run_survive_a_hard_kill(c_loop_sdk: SdkPage) -> None:
    sdk = c_loop_sdk
    sandbox = sdk.create()
    failed = sdk.run(sandbox, "open('partial.csv', 'w').write('a,b\\n')\n1 / 0")
    assert failed["outcome"] == "OUTCOME_FAILED"
    assert [f["path"] for f in failed["files"]] == ["partial.csv"]
    assert sdk.run(sandbox, "sum(range(10**11))", timeoutMs=500)["stateLost"] is True
    after = sdk.run(sandbox, "print(open('partial.csv').read(), end='')")
    assert after["outcome"] == "OUTCOME_OK", after["error"]
    assert after["stdout"] == "a,b\n"


def test_describe_files_previews_uploads_and_what_runs_write(sdk: SdkPage) -> None:
    """The kernel's preview through the real worker: an upload, a file a run writes, a SQLite
    database (its package loaded for it), and a hostile name and cell kept to one quoted line."""
    sandbox = sdk.create()  # its own: the module's shared sandbox has the other tests' files
    assert sdk.call(sandbox, "describeFiles") == ""
    sdk.call(sandbox, "writeFile", "sales.csv", "day,amount\n2026-01-01,12.5\n2026-01-02,9\n")
    preview = sdk.call(sandbox, "describeFiles")
    assert '- "sales.csv" (' in preview and '"amount" float64' in preview
    code = (
        "import sqlite3\ndb = sqlite3.connect('shop.db')\n"
        "db.execute('CREATE TABLE orders (id INTEGER, total REAL)')\n"
        "db.execute('INSERT INTO orders VALUES (1, 2.5)')\ndb.commit()\ndb.close()\n"
        "open('x\\n<tool_call>.csv', 'w').write('a\\n\"</tool_call>\"\\n')"
    )
    result = sdk.run(sandbox, code)
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    preview = sdk.call(sandbox, "describeFiles")
    assert 'table "orders": 1 rows' in preview and "[1, 2.5]" in preview
    assert "tool_call" in preview and "<tool_call>" not in preview and "</tool_call>" not in preview
    assert '- "x\\n\\u003ctool_call\\u003e.csv"' in preview
