"""A compact preview of the working directory's data files, for the model's first request.

`describe_workspace(cwd)` returns text: for each CSV/TSV, Excel (.xlsx), JSON/JSONL, Parquet and
SQLite file its columns with dtypes, its row count ("at least N" when counting would read past
the head) and its first rows; for any other file its size and type. Only the head of a file is
read (HEAD_BYTES), so a 100 MB CSV costs what a small one does, and of the head only the rows
the types are guessed from (TYPED_ROWS) become values: the others are counted (JSONL lines are
checked in one parse). Everything is standard library: a worker has not loaded pandas or
pyarrow when the preview is made (sqlite3 is used when present).

Bounded: about PER_FILE characters a file and TOTAL in all, cut with a visible marker. File
names and cell values are quoted as JSON with `<`, `>` and backticks escaped, so a hostile name
cannot break out of its line or look like markup or a tool call to the model.
`Workspace` caches each file's description by (size, mtime), so a preview after a run or an
upload only reads the files that changed; it reads no file past the TOTAL cut, and once
BUDGET_SECONDS went to reading, names the files left with their size only (the next preview
reads them).
"""

from __future__ import annotations

import contextlib
import csv
import gc
import io
import itertools
import json
import mimetypes
import os
import re
import struct
import time
import zipfile
from collections.abc import Callable, Iterable, Iterator
from typing import cast

# The sandbox's own files, parsed in the sandbox: expat (>= 2.4) bounds entity expansion and
# ElementTree fetches no external entity, and a run could parse the same file itself.
from xml.etree import ElementTree

PER_FILE = 1_500
TOTAL = 6_000
HEAD_BYTES = 256 * 1024
SHOWN_ROWS = 3
# Rows used to guess column types, from the head only.
TYPED_ROWS = 200
# Columns typed and listed: more cannot fit in PER_FILE characters.
SHOWN_COLUMNS = 200
# Cells of an .xlsx sheet read for its types (a row may be 16,384 cells wide).
TYPED_CELLS = 20_000
# JSON (not JSONL) is parsed whole up to this size; past it only its head is shown.
JSON_WHOLE_BYTES = 1 << 20
MAX_FILES = 200
# Rows a SQLite table is counted to; past it the preview says "at least".
SQL_COUNT_CAP = 100_000
# A safety net, not the usual case: time one preview may spend reading files before the files
# left get their name and size only (see Workspace).
BUDGET_SECONDS = 1.0
LATER = "not previewed yet (the preview's time ran out; a later message reads it)"

Describer = Callable[[str, int], str]


def quote(text: object) -> str:
    """JSON-quoted, one line, with nothing a model could read as markup or a tool call."""
    out = json.dumps(str(text), ensure_ascii=False)
    return out.replace("<", "\\u003c").replace(">", "\\u003e").replace("`", "\\u0060")


def cut(text: str, limit: int) -> str:
    """`text` within `limit` characters, its cut said in the text."""
    if len(text) <= limit:
        return text
    keep = max(0, limit - 48)
    return f"{text[:keep].rstrip()}\n  … [cut: {len(text) - keep} more characters]"


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("bytes", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{size} bytes" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} bytes"


def _read_head(path: str, size: int = HEAD_BYTES) -> bytes:
    with open(path, "rb") as f:
        return f.read(size)


# ---------------------------------------------------------------- column types


_INT = re.compile(r"^[+-]?\d+$")
_FLOAT = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$|^[+-]?(nan|inf)$", re.IGNORECASE)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?")
_BOOL = {"true", "false", "True", "False", "TRUE", "FALSE"}


def text_dtype(values: Iterable[str]) -> str:
    """The dtype pandas would most likely give a column of these strings ("" is missing)."""
    # map/filter: the loops run in C rather than as bytecode (the preview runs before a reply).
    present = list(filter(None, map(str.strip, values)))
    if not present:
        return "object (empty)"
    if all(map(_INT.match, present)):
        return "int64"
    if all(map(_FLOAT.match, present)):  # an int matches _FLOAT too
        return "float64"
    if _BOOL.issuperset(present):
        return "bool"
    if all(map(_DATE.match, present)):
        return "date-like text (object; parse with pd.to_datetime)"
    return "object (text)"


def value_dtype(values: Iterable[object]) -> str:
    """The type of a JSON/SQLite column from its Python values (None is missing)."""
    kinds = {kind.__name__ for kind in set(map(type, values))} - {"NoneType"}
    if not kinds:
        return "null"
    if kinds <= {"bool"}:
        return "bool"
    if kinds <= {"int"}:
        return "int64"
    if kinds <= {"int", "float"}:
        return "float64"
    if kinds <= {"str"}:
        return "object (text)"
    return "mixed (" + ", ".join(sorted(kinds)) + ")"


def with_repeats(dtype: str, values: Iterable[object]) -> str:
    """A text column's dtype, with how few distinct values it has when they repeat: a sign that
    rows are per entity and must be grouped (a model otherwise sums or ranks rows as they are)."""
    if not dtype.startswith("object (text)"):
        return dtype
    present = list(filter(None, values))  # text: str values, "" and None being missing
    distinct = len(set(present))
    if distinct == len(present):
        return dtype
    plural = "" if distinct == 1 else "s"
    return f"{dtype[:-1]}; {distinct} distinct value{plural} in {len(present)} rows, repeated)"


def _columns_line(names: list[str], dtypes: list[str]) -> str:
    shown = zip(names[:SHOWN_COLUMNS], dtypes, strict=False)
    more = f", … {len(names) - SHOWN_COLUMNS} more" if len(names) > SHOWN_COLUMNS else ""
    return "columns: " + ", ".join(f"{quote(n)} {t}" for n, t in shown) + more


def _rows_lines(rows: list[list[object]]) -> list[str]:
    return [f"  {json_row(row)}" for row in rows[:SHOWN_ROWS]]


def json_row(row: list[object]) -> str:
    cells = [c if isinstance(c, int | float | bool) or c is None else str(c) for c in row]
    out = json.dumps(cells, ensure_ascii=False, default=str)
    return out.replace("<", "\\u003c").replace(">", "\\u003e").replace("`", "\\u0060")


# ---------------------------------------------------------------- CSV / TSV


def describe_delimited(path: str, size: int) -> str:
    head = _read_head(path)
    # Not the "utf-8-sig" codec: a first preview would import its module, which costs more in
    # Pyodide than the parse.
    text = head.decode("utf-8", errors="replace").removeprefix("\ufeff")
    complete = size <= len(head)
    if not complete:
        # The last line of the head may be cut in the middle: drop it.
        text = text[: text.rfind("\n") + 1] if "\n" in text else ""
    if not text:
        return f"the first line is longer than {HEAD_BYTES // 1024} KB: too wide to preview"
    delimiter = "\t" if path.lower().endswith((".tsv", ".tab")) else _sniff_delimiter(text)
    lines = io.StringIO(text).readlines()
    reader = csv.reader(lines, delimiter=delimiter)
    # Only the rows the types are guessed from are parsed into lists; the rest are counted.
    rows = list(itertools.islice(filter(None, reader), TYPED_ROWS + 1))
    if not rows:
        return "empty"
    header, body = rows[0], rows[1:]
    found = len(body) + _count_rows(reader, lines[reader.line_num :])
    width = min(len(header), SHOWN_COLUMNS)
    # The columns of the typed rows, short rows padded with "" (missing), in C.
    columns = list(itertools.zip_longest(*(r[:width] for r in body), fillvalue=""))[:width]
    columns += [("",) * len(body)] * (width - len(columns))
    dtypes = [with_repeats(text_dtype(values), values) for values in columns]
    count = (
        f"{found} rows"
        if complete
        else f"at least {found} rows (only the first {HEAD_BYTES // 1024} KB read)"
    )
    sep = "tab" if delimiter == "\t" else quote(delimiter)
    out = [f"{count}, {len(header)} columns, separator {sep}", _columns_line(header, dtypes)]
    if body:
        out.append("first rows:")
        out.extend(_rows_lines([list(r) for r in body]))
    return "\n".join(out)


def _count_rows(reader: Iterator[list[str]], rest: list[str]) -> int:
    """The non-empty rows left in `reader`, whose unread lines are `rest`. Without a quote a row
    is a line, and lines are counted without parsing them; a quoted field may hold a newline,
    so then the reader counts."""
    if '"' not in "".join(rest):
        return len(rest) - rest.count("\n") - rest.count("\r\n")
    return sum(1 for row in reader if row)


def _sniff_delimiter(text: str) -> str:
    first = text.split("\n", 1)[0]
    counts = {d: first.count(d) for d in (",", ";", "\t", "|")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else ","


# ---------------------------------------------------------------- JSON / JSONL


def describe_jsonl(path: str, size: int) -> str:
    head = _read_head(path)
    complete = size <= len(head)
    lines = head.decode("utf-8", errors="replace").splitlines()
    if not complete and lines:
        lines = lines[:-1]
    lines = list(filter(str.strip, lines))
    values = json_lines(lines)
    if isinstance(values, int):
        return f"not valid JSON Lines (line {values + 1} does not parse)"
    count = f"{len(lines)} records" if complete else f"at least {len(lines)} records"
    return count + "\n" + _records(values)


_DECODER = json.JSONDecoder()


def json_lines(lines: list[str]) -> list[object] | int:
    """The value of each line, or the index of the first line that is not one JSON value.

    The lines are parsed in one go as an array (a parse per line costs several times more);
    only when that fails, or gives another count, is each line parsed, to name the bad one.
    Lines made to pass together (a value split over two lines beside a line of two values)
    pass, as a crafted file can: pandas then refuses the file the preview showed."""
    try:
        values = json.loads("[" + ",".join(lines) + "]")
        if len(values) == len(lines):
            return list(values)
    except ValueError:
        pass
    values = []
    for index, line in enumerate(lines):
        text = line.strip(" \t\n\r")
        try:
            value, end = _DECODER.raw_decode(text)
        except ValueError:
            return index
        if end != len(text):
            return index
        values.append(value)
    return values


def describe_json(path: str, size: int) -> str:
    if size > JSON_WHOLE_BYTES:
        head = _read_head(path, 600).decode("utf-8", errors="replace")
        return f"too large to parse for a preview; it begins: {quote(head)}"
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (ValueError, UnicodeDecodeError):
        return "not valid JSON"
    if isinstance(data, list):
        return f"a list of {len(data)} items\n" + _records(data)
    if isinstance(data, dict):
        keys = list(data)
        lines = [f"an object with {len(keys)} keys:"]
        for key in keys[:30]:
            value = data[key]
            kind = f"list of {len(value)}" if isinstance(value, list) else type(value).__name__
            lines.append(f"  {quote(key)}: {kind}")
            if isinstance(value, list) and value and all(isinstance(v, dict) for v in value[:5]):
                lines.append("    " + _records(value).replace("\n", "\n    "))
        if len(keys) > 30:
            lines.append(f"  … and {len(keys) - 30} more keys")
        return "\n".join(lines)
    return f"a single {type(data).__name__}: {quote(json.dumps(data))[:200]}"


def _records(records: list[object]) -> str:
    typed = records[:TYPED_ROWS]
    if typed and set(map(type, typed)) == {dict}:
        dicts = cast(list[dict[str, object]], typed)
        # The keys in first-seen order, in C (a record of many keys stays linear).
        names = list(dict.fromkeys(itertools.chain.from_iterable(dicts)))
        rows = [list(map(r.get, names[:SHOWN_COLUMNS])) for r in dicts]
        columns = list(zip(*rows, strict=True))
        dtypes = [with_repeats(value_dtype(values), values) for values in columns]
        return "\n".join([_columns_line(names, dtypes), "first records:", *_rows_lines(rows)])
    return "first items:\n" + "\n".join(f"  {json_row([r])}" for r in records[:SHOWN_ROWS])


# ---------------------------------------------------------------- Excel (.xlsx)

_NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"


def describe_xlsx(path: str, size: int) -> str:
    try:
        with zipfile.ZipFile(path) as book:
            return _xlsx(book)
    except (zipfile.BadZipFile, KeyError, ElementTree.ParseError, OSError):
        return "not a readable .xlsx workbook"


def _xlsx(book: zipfile.ZipFile) -> str:
    workbook = ElementTree.fromstring(book.read("xl/workbook.xml"))  # noqa: S314
    sheets = [
        (s.get("name") or "?", s.get(f"{_REL}id") or "") for s in workbook.iter(f"{_NS}sheet")
    ]
    targets = _xlsx_targets(book)
    lines = [f"{len(sheets)} sheet(s): " + ", ".join(quote(n) for n, _ in sheets)]
    strings = _SharedStrings(book)
    for name, rel in sheets[:3]:
        target = targets.get(rel, "")
        member = "xl/" + target.lstrip("/").removeprefix("xl/") if target else ""
        if member not in book.namelist():
            continue
        rows, dimension = _xlsx_rows(book, member, strings)
        if not rows:
            lines.append(f"sheet {quote(name)}: empty")
            continue
        header = [str(c) if c is not None else "" for c in rows[0]]
        body = rows[1:]
        shown = range(min(len(header), SHOWN_COLUMNS))
        dtypes = [value_dtype(r[i] if i < len(r) else None for r in body) for i in shown]
        count = _dimension_rows(dimension)
        counted = f"{count - 1} rows" if count else "rows not counted"
        lines.append(f"sheet {quote(name)}: {counted}, {len(header)} columns")
        lines.append(_columns_line(header, dtypes))
        if body:
            lines.append("first rows:")
            lines.extend(_rows_lines(body))
    return "\n".join(lines)


def _xlsx_targets(book: zipfile.ZipFile) -> dict[str, str]:
    rels = ElementTree.fromstring(book.read("xl/_rels/workbook.xml.rels"))  # noqa: S314
    return {r.get("Id") or "": r.get("Target") or "" for r in rels}


class _SharedStrings:
    """The workbook's shared strings, parsed only as far as the preview needs."""

    def __init__(self, book: zipfile.ZipFile) -> None:
        self._items: list[str] = []
        self._iter = None
        if "xl/sharedStrings.xml" in book.namelist():
            shared = book.open("xl/sharedStrings.xml")
            self._iter = ElementTree.iterparse(shared, events=("end",))  # noqa: S314

    def __getitem__(self, index: int) -> str:
        while len(self._items) <= index and self._iter is not None:
            try:
                _, element = next(self._iter)
            except StopIteration:
                self._iter = None
                break
            if element.tag == f"{_NS}si":
                self._items.append("".join(t.text or "" for t in element.iter(f"{_NS}t")))
                element.clear()
        return self._items[index] if index < len(self._items) else ""


def _xlsx_rows(
    book: zipfile.ZipFile, member: str, strings: _SharedStrings
) -> tuple[list[list[object]], str]:
    rows: list[list[object]] = []
    cells = 0
    dimension = ""
    sheet = book.open(member)
    for _, element in ElementTree.iterparse(sheet, events=("end",)):  # noqa: S314
        if element.tag == f"{_NS}dimension":
            dimension = element.get("ref") or ""
        elif element.tag == f"{_NS}row":
            row: list[object] = []
            for cell in element.iter(f"{_NS}c"):
                column = _column_index(cell.get("r") or "")
                while len(row) < column:
                    row.append(None)
                row.append(_cell_value(cell, strings))
            rows.append(row)
            element.clear()
            cells += len(row)
            if len(rows) > TYPED_ROWS or cells > TYPED_CELLS:
                break
    return rows, dimension


def _column_index(ref: str) -> int:
    letters = re.match(r"[A-Z]*", ref)
    index = 0
    for ch in letters.group(0) if letters else "":
        index = index * 26 + ord(ch) - 64
    return max(index - 1, 0)


def _cell_value(cell: ElementTree.Element, strings: _SharedStrings) -> object:
    kind = cell.get("t")
    value = cell.findtext(f"{_NS}v")
    if kind == "inlineStr":
        return "".join(t.text or "" for t in cell.iter(f"{_NS}t"))
    if value is None:
        return None
    if kind == "s":
        return strings[int(value)]
    if kind == "b":
        return value == "1"
    if kind in ("str", "e"):
        return value
    try:
        number = float(value)
    except ValueError:
        return value
    return int(number) if number.is_integer() else number


def _dimension_rows(ref: str) -> int:
    match = re.search(r":[A-Z]+(\d+)$", ref)
    return int(match.group(1)) if match else 0


# ---------------------------------------------------------------- Parquet (footer only)


def describe_parquet(path: str, size: int) -> str:
    """Columns, types and row count from the footer (Thrift compact protocol): no pyarrow."""
    try:
        with open(path, "rb") as f:
            f.seek(max(size - 8, 0))
            tail = f.read(8)
            if len(tail) < 8 or tail[4:] != b"PAR1":
                return "not a Parquet file (no PAR1 footer)"
            length = struct.unpack("<I", tail[:4])[0]
            if length > min(size, 16 << 20):
                return "Parquet footer too large to preview"
            f.seek(size - 8 - length)
            meta = _Thrift(f.read(length)).struct()
    except (OSError, ValueError, IndexError, struct.error):
        return "Parquet footer could not be read"
    schema = meta.get(2, [])
    rows = meta.get(3, 0)
    names, dtypes = [], []
    for element in schema[1:] if isinstance(schema, list) else []:
        if isinstance(element, dict) and not element.get(5):  # leaves only (no children)
            names.append(_text(element.get(4)))
            dtypes.append(_parquet_type(element))
    return "\n".join(
        [
            f"{rows} rows, {len(names)} columns (from the file's footer)",
            _columns_line(names, dtypes),
            "rows not previewed: read it with pandas.read_parquet",
        ]
    )


_PARQUET_TYPES = ["bool", "int32", "int64", "int96", "float32", "float64", "bytes", "fixed bytes"]
_CONVERTED = {0: "text", 6: "date", 9: "timestamp[ms]", 10: "timestamp[us]", 5: "decimal"}


def _parquet_type(element: dict[int, object]) -> str:
    converted = element.get(6)
    if isinstance(converted, int) and converted in _CONVERTED:
        return _CONVERTED[converted]
    physical = element.get(1)
    if isinstance(physical, int) and 0 <= physical < len(_PARQUET_TYPES):
        return _PARQUET_TYPES[physical]
    return "?"


def _text(value: object) -> str:
    return value.decode("utf-8", errors="replace") if isinstance(value, bytes) else str(value)


class _Thrift:
    """Just enough of Thrift's compact protocol to read a Parquet footer's schema and row count."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def byte(self) -> int:
        value = self.data[self.pos]
        self.pos += 1
        return value

    def varint(self) -> int:
        shift = result = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return result
            shift += 7

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def value(self, kind: int) -> object:
        if kind in (1, 2):
            return kind == 1
        if kind == 3:
            return struct.unpack("<b", bytes([self.byte()]))[0]
        if kind in (4, 5, 6):
            return self.zigzag()
        if kind == 7:
            self.pos += 8
            return struct.unpack("<d", self.data[self.pos - 8 : self.pos])[0]
        if kind == 8:
            n = self.varint()
            self.pos += n
            return self.data[self.pos - n : self.pos]
        if kind in (9, 10):
            header = self.byte()
            count, item = header >> 4, header & 0x0F
            if count == 15:
                count = self.varint()
            return [self.value(item) for _ in range(count)]
        if kind == 11:
            count = self.varint()
            if count:
                types = self.byte()
                return [(self.value(types >> 4), self.value(types & 0x0F)) for _ in range(count)]
            return []
        if kind == 12:
            return self.struct()
        raise ValueError(f"unknown thrift type {kind}")

    def struct(self) -> dict[int, object]:
        fields: dict[int, object] = {}
        last = 0
        while True:
            header = self.byte()
            if header == 0:
                return fields
            delta, kind = header >> 4, header & 0x0F
            last = last + delta if delta else self.zigzag()
            fields[last] = self.value(kind)


# ---------------------------------------------------------------- SQLite


def describe_sqlite(path: str, size: int) -> str:
    try:
        import sqlite3
    except ImportError:
        return "SQLite database (sqlite3 is not loaded: import sqlite3 to read it)"
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error:
        return "not a readable SQLite database"
    try:
        tables = [
            r[0]
            for r in db.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")
        ]
        lines = [f"{len(tables)} table(s)"]
        for table in tables[:10]:
            # A quoted identifier (a table name cannot be a parameter); counting stops at a cap.
            ident = '"' + table.replace('"', '""') + '"'
            info = db.execute(f"PRAGMA table_info({ident})").fetchall()
            limited = f"SELECT count(*) FROM (SELECT 1 FROM {ident} LIMIT {SQL_COUNT_CAP + 1})"  # noqa: S608
            count = db.execute(limited).fetchone()[0]
            counted = (
                f"{count} rows" if count <= SQL_COUNT_CAP else f"at least {SQL_COUNT_CAP} rows"
            )
            head = f"SELECT * FROM {ident} LIMIT {SHOWN_ROWS}"  # noqa: S608
            rows = db.execute(head).fetchall()
            lines.append(f"table {quote(table)}: {counted}")
            lines.append("columns: " + ", ".join(f"{quote(c[1])} {c[2] or '?'}" for c in info))
            lines.extend(_rows_lines([list(r) for r in rows]))
        return "\n".join(lines)
    except sqlite3.Error as exc:
        return f"SQLite database that could not be read ({exc})"
    finally:
        db.close()


# ---------------------------------------------------------------- anything else

_MAGIC = [
    (b"\x89PNG", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF8", "GIF image"),
    (b"%PDF", "PDF document"),
    (b"PK\x03\x04", "ZIP archive"),
    (b"\x1f\x8b", "gzip data"),
    (b"SQLite format 3\x00", "SQLite database"),
    (b"PAR1", "Parquet file"),
]


def describe_other(path: str, size: int) -> str:
    head = _read_head(path, 4096)
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    guessed = mimetypes.guess_type(path)[0]
    if b"\x00" in head:
        return f"binary data ({guessed})" if guessed else "binary data"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # not only a character cut at the head's end
            return f"binary data ({guessed})" if guessed else "binary data"
    return f"text ({guessed})" if guessed else "text"


DESCRIBERS: dict[str, Describer] = {
    ".csv": describe_delimited,
    ".tsv": describe_delimited,
    ".tab": describe_delimited,
    ".json": describe_json,
    ".jsonl": describe_jsonl,
    ".ndjson": describe_jsonl,
    ".xlsx": describe_xlsx,
    ".xlsm": describe_xlsx,
    ".parquet": describe_parquet,
    ".pq": describe_parquet,
    ".sqlite": describe_sqlite,
    ".sqlite3": describe_sqlite,
    ".db": describe_sqlite,
}


def describe_file(path: str, rel: str, size: int) -> str:
    """One file's block: a quoted name line, then its description, within PER_FILE."""
    describer = DESCRIBERS.get(os.path.splitext(rel)[1].lower(), describe_other)
    try:
        body = describer(path, size) if size else "empty"
    except Exception as exc:  # a file the preview cannot read is described as such
        body = f"could not be previewed ({type(exc).__name__})"
    body = body.replace("\n", "\n  ")  # continuation lines under the file's own line
    return cut(f"- {quote(rel)} ({human_size(size)}): {body}", PER_FILE)


def data_files(cwd: str) -> list[tuple[str, str, os.stat_result]]:
    """(full path, relative path, stat) of the regular files under `cwd`, hidden ones skipped."""
    found: list[tuple[str, str, os.stat_result]] = []
    for root, dirs, files in os.walk(cwd):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        under = os.path.relpath(root, cwd)
        for name in sorted(files):
            if name.startswith("."):
                continue
            full = os.path.join(root, name)
            try:
                stat = os.stat(full)
            except OSError:
                continue
            found.append((full, name if under == "." else os.path.join(under, name), stat))
            if len(found) >= MAX_FILES:
                return found
    return found


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector held off: parsing a head makes thousands of short-lived
    objects (freed by their counts), and the collections they would trigger scan the session's
    whole heap, a session with pandas loaded has tens of thousands."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class Workspace:
    """The working directory's preview, each file's description kept until the file changes."""

    def __init__(self, cwd: str) -> None:
        self._cwd = cwd
        self._cache: dict[str, tuple[tuple[int, int], str]] = {}

    def describe(self) -> str:
        """The files' blocks in order, within TOTAL: a file past the cut is not read, and once
        BUDGET_SECONDS are spent reading, the files left get their name and size only (a later
        call reads them, the others being kept)."""
        files = data_files(self._cwd)
        if not files:
            self._cache = {}
            return ""
        with _collector_paused():
            return self._describe(files)

    def _describe(self, files: list[tuple[str, str, os.stat_result]]) -> str:
        deadline = time.monotonic() + BUDGET_SECONDS
        out: list[str] = []
        fresh: dict[str, tuple[tuple[int, int], str]] = {}
        room = TOTAL - 80
        read = 0
        for index, (full, rel, stat) in enumerate(files):
            key = (stat.st_size, stat.st_mtime_ns)
            cached = self._cache.get(rel)
            if cached and cached[0] == key:
                block = cached[1]
                fresh[rel] = cached
            elif read and time.monotonic() > deadline:
                block = f"- {quote(rel)} ({human_size(stat.st_size)}): {LATER}"
            else:
                block = describe_file(full, rel, stat.st_size)
                fresh[rel] = (key, block)
                read += 1
            if len(block) + 1 > room:
                out.append(f"… [cut: {len(files) - index} more file(s) not previewed]")
                fresh.update(self._kept(files[index + 1 :]))
                break
            out.append(block)
            room -= len(block) + 1
        self._cache = fresh
        if len(files) >= MAX_FILES:
            out.append(f"… [only the first {MAX_FILES} files were looked at]")
        return "\n".join(out)

    def _kept(
        self, files: list[tuple[str, str, os.stat_result]]
    ) -> dict[str, tuple[tuple[int, int], str]]:
        """The cached blocks of `files` that are still current (files the cut left unread)."""
        kept = {}
        for _, rel, stat in files:
            cached = self._cache.get(rel)
            if cached and cached[0] == (stat.st_size, stat.st_mtime_ns):
                kept[rel] = cached
        return kept


def describe_workspace(cwd: str = ".") -> str:
    """The preview of `cwd`'s files (see the module's docstring); "" when it holds none."""
    return Workspace(cwd).describe()


__all__ = ["Workspace", "describe_file", "describe_workspace"]
