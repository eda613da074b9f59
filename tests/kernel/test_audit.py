"""The audit record: code hash, files, network attempts, imported modules."""

from __future__ import annotations

import hashlib
import os
import sys

from wasmbox_kernel.audit import MAX_ENTRIES, MAX_WRITTEN, AuditCollector
from wasmbox_kernel.context import DISPATCHER
from wasmbox_kernel.fsscan import changed_files
from wasmbox_kernel.protocol_data import LIMITS, guess_mime


def test_code_hash(run, kernel):
    code = "x = 'é'"
    assert run(kernel, code)["audit"]["codeSha256"] == hashlib.sha256(code.encode()).hexdigest()


def test_memory_is_left_to_the_worker(run, kernel):
    assert run(kernel, "1")["audit"]["peakMemoryBytes"] is None


def test_files_read_and_written_relative_to_cwd(run, kernel, tmp_path):
    (tmp_path / "in.csv").write_text("a\n1\n")
    code = (
        "import os\n"
        "os.makedirs('out', exist_ok=True)\n"
        "data = open('in.csv').read()\n"
        "open('out/r.txt', 'w').write(data)"
    )
    result = run(kernel, code)
    assert result["audit"]["filesRead"] == ["in.csv"]
    assert result["audit"]["filesWritten"] == ["out/r.txt"]
    assert result["files"] == [{"path": "out/r.txt", "size": 4, "mime": "text/plain"}]


def test_unchanged_files_are_not_reported(run, kernel, tmp_path):
    run(kernel, "open('a.json', 'w').write('{}')")
    result = run(kernel, "open('a.json').read()")
    assert (result["files"], result["audit"]["filesWritten"]) == ([], [])


def test_file_types_are_read_as_the_host_reads_them(run, kernel):
    """By the name's last dot, case-insensitively, never a dot that begins the name (mime.ts)."""
    names = ["A.CSV", "d.x/notes", ".csv", "..csv", "t.tar.json", "end."]
    code = "import os\nos.makedirs('d.x')\nfor n in " + repr(names) + ": open(n, 'w').close()"
    mimes = {f["path"]: f["mime"] for f in run(kernel, code)["files"]}
    binary = "application/octet-stream"
    assert mimes == {
        "A.CSV": "text/csv",
        "d.x/notes": binary,
        ".csv": binary,
        "..csv": "text/csv",
        "t.tar.json": "application/json",
        "end.": binary,
    }


def test_files_written_are_the_opens_and_the_scans_changes_once_each_sorted(run, kernel):
    """A file opened for writing and gone by the end is only in the audit; a new one the scan
    finds is in both; filesWritten holds each once, in order."""
    code = (
        "import os\n"
        "open('b.txt', 'w').write('1')\n"
        "open('gone.txt', 'w').close()\n"
        "os.remove('gone.txt')\n"
        "os.close(os.open('a.txt', os.O_WRONLY | os.O_CREAT))"
    )
    result = run(kernel, code)
    assert [f["path"] for f in result["files"]] == ["a.txt", "b.txt"]
    assert result["audit"]["filesWritten"] == ["a.txt", "b.txt", "gone.txt"]


def test_written_adds_the_opens_to_the_changes_only_when_some_are_missing(tmp_path):
    collector = AuditCollector(str(tmp_path), ())
    changed = ["a", "b"]
    collector.files_written.update({"b"})
    assert collector.written(changed) is changed  # every open among the changes
    collector.files_written.update({"0", "z"})
    assert collector.written(changed) == ["0", "a", "b", "z"]


def test_file_types_worked_out_once_per_ending_are_each_files_own():
    """Paths sharing an ending, a character before the last dot, or a last character: each gets
    the type `guess_mime` gives it alone."""
    paths = [".", "v", ".v", "a/.v", "ab.v", "a.b/cv", "a/b.CSV", "b.csv", "/.csv", "x/.csv"]
    paths += ["c..csv", "d.x/notes", "end.", "d/end.", "t.tar.json", "n/ab", "mab", "a.b/"]
    paths += ["é.JSON", "é.json"]
    files = changed_files({}, {path: (1, 0) for path in paths})
    assert {f["path"]: f["mime"] for f in files} == {path: guess_mime(path) for path in paths}
    assert {"text/csv", "application/json"} <= {f["mime"] for f in files}


def test_files_written_without_open_are_found_by_the_scan(run, kernel):
    result = run(kernel, "import pathlib\npathlib.Path('p.md').write_text('# hi')")
    assert result["files"] == [{"path": "p.md", "size": 4, "mime": "text/markdown"}]


def test_network_attempts_are_recorded(run, kernel):
    code = (
        "import socket, urllib.request, http.client\n"
        "for attempt in (\n"
        "    lambda: socket.getaddrinfo('localhost', 80),\n"
        "    lambda: socket.socket().connect(('127.0.0.1', 9)),\n"
        "    lambda: http.client.HTTPConnection('127.0.0.1', 9, timeout=1).connect(),\n"
        "    lambda: urllib.request.urlopen('http://127.0.0.1:9/x', timeout=1),\n"
        "):\n"
        "    try:\n"
        "        attempt()\n"
        "    except OSError:\n"
        "        pass"
    )
    attempts = run(kernel, code)["audit"]["networkAttempts"]
    assert {"kind": "socket.getaddrinfo", "target": "localhost:80"} in attempts
    assert {"kind": "socket.connect", "target": "127.0.0.1:9"} in attempts
    assert {"kind": "http.client.connect", "target": "127.0.0.1:9"} in attempts
    assert {"kind": "urllib.Request", "target": "http://127.0.0.1:9/x"} in attempts


def test_newly_imported_top_level_modules(run, kernel):
    sys.modules.pop("colorsys", None)
    assert run(kernel, "import colorsys, json")["audit"]["importedModules"] == ["colorsys"]


def test_a_submodule_import_reports_its_top_level_package(run, kernel):
    for name in [name for name in sys.modules if name.partition(".")[0] == "wsgiref"]:
        sys.modules.pop(name)
    assert run(kernel, "import wsgiref.util")["audit"]["importedModules"] == ["wsgiref"]
    assert run(kernel, "import wsgiref.headers")["audit"]["importedModules"] == []


def test_each_run_collects_only_its_own_events(run, kernel):
    run(kernel, "open('x.txt', 'w').write('1')")
    assert run(kernel, "1")["audit"]["filesWritten"] == []


def test_the_audit_hook_is_installed_once(run, make_kernel, monkeypatch):
    """Hooks cannot be listed or removed: a second install shows as each event seen twice."""
    seen: list[object] = []
    original = AuditCollector.on_open

    def counting(self: AuditCollector, args: tuple[object, ...]) -> None:
        seen.append(args[0])
        original(self, args)

    monkeypatch.setattr(AuditCollector, "on_open", counting)
    run(make_kernel(), "1")
    run(make_kernel(), "1")
    run(make_kernel(), "open('once.txt', 'w').close()")
    opened = [target for target in seen if "once.txt" in str(target)]
    assert len(opened) == 1
    assert DISPATCHER.current() is None  # nothing stays active after a run


def test_files_are_compared_with_the_last_runs_scan_until_forgotten(run, kernel, tmp_path):
    run(kernel, "open('a.txt', 'w').write('1')")
    (tmp_path / "host.txt").write_text("from the host")  # written outside any run
    kernel.forget_files()
    assert [f["path"] for f in run(kernel, "open('b.txt', 'w').write('2')")["files"]] == ["b.txt"]
    assert run(kernel, "1")["files"] == []


def test_paths_outside_cwd_stay_absolute_and_library_files_are_left_out(tmp_path):
    cwd, lib = tmp_path / "work", tmp_path / "lib"
    collector = AuditCollector(str(cwd), (str(lib),))
    for target in (cwd / "a.txt", cwd / "sub" / ".." / "b.txt", lib / "x.py", lib, tmp_path / "c"):
        collector.on_event("open", (str(target), "r", 0))
    collector.on_event("open", (str(cwd), "r", 0))
    assert collector.files_read == {"a.txt", "b.txt", str(tmp_path / "c"), "."}


def test_the_file_lists_stop_at_their_cap(tmp_path):
    """Files read at 1,000; files written at the protocol's list cap, as `files` is."""
    collector = AuditCollector(str(tmp_path), ())
    for i in range(MAX_WRITTEN + 5):
        collector.on_event("open", (str(tmp_path / f"w{i}"), "w", 0))
        collector.on_event("open", (f"r{i}", "r", 0))
    assert MAX_WRITTEN == LIMITS["maxListEntries"] > MAX_ENTRIES
    assert (len(collector.written([])), len(collector.files_read)) == (MAX_WRITTEN, MAX_ENTRIES)


def test_files_written_and_gone_are_all_listed_past_a_thousand(run, kernel):
    """A run's temporary files are in filesWritten however many there are (up to the list cap),
    not only its first 1,000 opens: the scan lists every file kept, the hook those removed."""
    code = (
        "import os\n"
        "for i in range(1200):\n"
        "    open(f'tmp{i}', 'w').close()\n"
        "    os.remove(f'tmp{i}')\n"
        "open('kept', 'w').close()"
    )
    result = run(kernel, code)
    assert [f["path"] for f in result["files"]] == ["kept"]
    assert result["audit"]["filesWritten"] == sorted(["kept", *(f"tmp{i}" for i in range(1200))])


def test_files_written_stop_at_the_list_cap_with_the_scans_files(tmp_path):
    """The opens and the scan's changes together: never a list the host would refuse."""
    collector = AuditCollector(str(tmp_path), ())
    for i in range(5):
        collector.on_event("open", (f"/elsewhere/{i}", "w", 0))
    changed = sorted(f"f{i:05}" for i in range(MAX_WRITTEN))
    written = collector.written(changed)
    assert len(written) == MAX_WRITTEN
    assert written[:5] == [f"/elsewhere/{i}" for i in range(5)]


def test_relative_paths_follow_the_directory_the_run_moves_to(run, kernel, tmp_path):
    """An open's relative path is the working directory's until the run (or a task) changes
    directory, by os.chdir or os.fchdir; then it is worked out from where it is."""
    (tmp_path / "sub").mkdir()
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    code = (
        "import os\n"
        "open('a', 'w').close()\n"
        "os.chdir('sub')\n"
        "open('b', 'w').close()\n"
        f"os.chdir({str(outside)!r})\n"
        "open('c', 'w').close()\n"
        f"fd = os.open({str(tmp_path)!r}, os.O_RDONLY)\n"
        "os.fchdir(fd)\n"
        "os.close(fd)\n"
        "open('d', 'w').close()\n"
        "open('sub/../e', 'w').close()\n"
        "open('./f', 'w').close()\n"
        "open('..g', 'w').close()\n"
        "open('sub/./i', 'w').close()"
    )
    written = run(kernel, code)["audit"]["filesWritten"]
    assert written == sorted(["a", "sub/b", str(outside / "c"), "d", "e", "f", "..g", "sub/i"])


def test_a_path_noted_as_opened_is_worked_out_as_the_full_path_would_be(tmp_path):
    """Paths opened for writing are worked out at the end from the working directory: the same
    as each open's absolute path gives, library files left out."""
    cwd, lib = tmp_path / "work", tmp_path / "lib"
    cwd.mkdir()
    targets = ["a", "a/b", ".", "..a", "a..", "a/..b", ".a/b", "a/.b", "é/ü", "a b", "a\\b"]
    targets += ["./a", "a//b", "a/", "a/.", "a/..", "..", "../a", "a/../../b", "../lib/x.py"]
    targets += [str(cwd / "c"), str(lib / "y.py"), str(tmp_path / "z"), "/", "//d"]
    cwd_now = os.getcwd()
    os.chdir(cwd)
    try:
        as_given, absolute = (AuditCollector(str(cwd), (str(lib),)) for _ in range(2))
        for target in targets:
            as_given.on_event("open", (target, "w", 0))
            absolute.on_event("open", (os.fsencode(os.path.abspath(target)), "w", 0))
    finally:
        os.chdir(cwd_now)
    assert as_given.written(["a"]) == absolute.written(["a"])
    assert "a/b" in as_given.written([]) and str(lib / "y.py") not in as_given.written([])


def test_a_file_reopened_many_times_is_noted_once(tmp_path):
    collector = AuditCollector(str(tmp_path), ())
    cwd_now = os.getcwd()
    os.chdir(tmp_path)
    try:
        for _ in range(5 * MAX_WRITTEN):
            collector.on_event("open", ("log.txt", "a", 0))
    finally:
        os.chdir(cwd_now)
    assert len(collector._opened) < 4 * MAX_WRITTEN  # worked out as it went: memory stays bounded
    assert collector.written([]) == ["log.txt"]


class Changes:
    """A stand-in for the worker's count of file system changes (sandbox/file-changes.ts)."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> int:
        return self.count


def test_with_a_change_count_a_run_that_changed_nothing_skips_the_scan(run, kernel, tmp_path):
    changes = Changes()
    kernel.watch_files(changes)
    run(kernel, "1")
    (tmp_path / "missed.txt").write_text("a change the count missed")
    assert run(kernel, "1")["files"] == []  # not scanned: the count did not move
    changes.count += 1  # as the worker's count moves when the next run writes
    written = run(kernel, "open('b.txt', 'w').write('2')")["files"]
    assert [f["path"] for f in written] == ["b.txt", "missed.txt"]
    assert run(kernel, "1")["files"] == []


def test_a_change_counted_between_runs_is_the_next_runs(run, kernel, tmp_path):
    """As without a count: a task an earlier run left running writes between runs."""
    changes = Changes()
    kernel.watch_files(changes)
    run(kernel, "1")
    (tmp_path / "later.txt").write_text("written between runs")
    changes.count += 1
    assert [f["path"] for f in run(kernel, "1")["files"]] == ["later.txt"]
