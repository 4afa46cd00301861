"""The simulator's word tables and keyword rules are data files (synth/simulator/data), read once, checked
against the shape their module declares, shipped in the wheel; the code left in results/ and values/ holds
no table of its own."""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import re
import tomllib
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import pytest

import synth.simulator
from synth.errors import SynthError, TableError
from synth.simulator import tables
from synth.simulator.tables import table

ROOT = Path(__file__).parents[1]
DATA = ROOT / "synth/simulator/data"


def _import_all() -> None:
    for m in pkgutil.walk_packages(synth.simulator.__path__, "synth.simulator."):
        importlib.import_module(m.name)


def test_every_data_file_is_shipped_found_and_every_entry_is_read():
    """Each file matches a package-data glob of pyproject (so the wheel has it), importlib.resources finds it,
    and after importing the simulator every entry of every file has been read: no dead table, no stray file."""
    setup = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    globs = setup["package-data"]["synth.simulator"]
    files = sorted(DATA.rglob("*.json"))
    assert len(files) >= 25
    _import_all()
    taken = tables.taken()
    for f in files:
        rel = f.relative_to(DATA.parent).as_posix()
        assert any(fnmatch(rel, g) and rel.count("/") == g.count("/") for g in globs), rel
        subject = f.relative_to(DATA).with_suffix("").as_posix()
        assert tables.ROOT.joinpath(*f"{subject}.json".split("/")).is_file(), subject
        data = json.loads(f.read_text(encoding="utf-8"))
        read = {n for s, n in taken if s == subject}
        assert set(data) == read, (subject, set(data) ^ read)
        code = (ROOT / "synth/simulator" / f"{subject}.py").read_text(encoding="utf-8") if subject != "vocab" else ""
        for section in ("keywords", "pools", "sets", "rows", "maps"):  # tables of named words: each name is used
            unused = [k for k in data.get(section, {}) if f'["{k}"]' not in code and f"['{k}']" not in code]
            assert unused == [], (subject, section, unused)


def _literal_tables(path: Path) -> list[str]:
    """Module-level names bound to a literal table (two or more items, a phrase, a regex) written in code."""

    def data(n: ast.AST) -> bool:
        if isinstance(n, ast.Constant):
            return True
        if isinstance(n, (ast.Tuple, ast.List, ast.Set)):
            return all(data(e) for e in n.elts)
        if isinstance(n, ast.Dict):
            return all(k is not None and data(k) for k in n.keys) and all(data(v) for v in n.values)
        if isinstance(n, ast.Call) and not n.keywords:
            f = n.func
            named = isinstance(f, ast.Name) and f.id in {"tuple", "frozenset", "set", "dict", "list"}
            regex = isinstance(f, ast.Attribute) and f.attr == "compile"
            words = isinstance(f, ast.Attribute) and f.attr == "split" and isinstance(f.value, ast.Constant)
            return (named or regex or words) and all(data(a) for a in n.args)
        if isinstance(n, ast.Attribute):  # re.I
            return isinstance(n.value, ast.Name) and n.value.id == "re"
        return isinstance(n, (ast.UnaryOp, ast.BinOp)) and all(
            data(c) for c in ast.iter_child_nodes(n) if not isinstance(c, (ast.operator, ast.unaryop))
        )

    found = []
    for st in ast.parse(path.read_text(encoding="utf-8")).body:
        value = st.value if isinstance(st, (ast.Assign, ast.AnnAssign)) else None
        if value is None or not data(value) or isinstance(value, ast.Attribute):
            continue
        table = eval(compile(ast.Expression(value), path.name, "eval"), {"re": re})  # literals only, checked above
        if isinstance(table, str):
            big = len(table.split()) >= 3 or len(table) >= 24 or table.count("|") >= 2
        else:
            big = isinstance(table, re.Pattern) or (not isinstance(table, (int, float)) and len(table) >= 2)
        if big:
            found.append(f"{path.name}:{st.lineno}")
    return found


def _keyword_rules(path: Path) -> list[str]:
    """Keyword rules written in code: a regex of three or more word alternatives given to ``re``, the nouns
    of a family (``nouns("movie film")``), or three or more words given to a call (``a.has("news", ...)``)."""
    found = []
    for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(n, ast.Call) and n.args and isinstance(n.args[0], ast.Constant)):
            continue
        f, text = n.func, n.args[0].value
        regex = isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "re"
        words = isinstance(text, str) and sum(bool(re.search("[a-zA-Z]{3,}", alt)) for alt in text.split("|")) >= 3
        if (regex and words) or (isinstance(f, ast.Name) and f.id == "nouns"):
            found.append(f"{path.name}:{n.lineno}")
    for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):  # words given as arguments: a.has("a", "b", "c")
        if isinstance(n, ast.Call) and sum(isinstance(a, ast.Constant) and type(a.value) is str for a in n.args) >= 3:
            found.append(f"{path.name}:{n.lineno}")
    return found


def _words_in_functions(path: Path) -> list[str]:
    """Word lists written inside a function: a tuple or set of three or more strings, rows holding words, or a
    map of words to words."""
    found = []
    for fn in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(fn, (ast.FunctionDef, ast.Lambda)):
            continue
        for n in ast.walk(fn):
            if isinstance(n, ast.Dict) and len(n.keys) >= 2:  # a map of words: {"cancel": "cancelled", ...}
                strings = [c for c in (*n.keys, *n.values) if isinstance(c, ast.Constant) and isinstance(c.value, str)]
                if len(strings) == 2 * len(n.keys):
                    found.append(f"{path.name}:{n.lineno}")
                continue
            if not isinstance(n, (ast.Tuple, ast.Set)) or isinstance(getattr(n, "ctx", None), ast.Store):
                continue
            try:
                value = ast.literal_eval(n)
            except ValueError:
                continue
            words = len(value) >= 3 and all(isinstance(v, str) for v in value)
            rows = isinstance(n, ast.Tuple) and len(value) >= 3 and all(isinstance(v, tuple) for v in value)
            if words or (rows and any(isinstance(x, str) for v in value for x in v)):
                found.append(f"{path.name}:{n.lineno}")
    return sorted(set(found))


def test_no_module_of_the_simulator_writes_a_table_or_a_keyword_rule_in_code():
    modules = sorted((ROOT / "synth/simulator").rglob("*.py"))
    assert len(modules) > 30
    assert [hit for m in modules for hit in _literal_tables(m)] == []
    assert [hit for m in modules for hit in _keyword_rules(m)] == []
    assert [hit for m in modules for hit in _words_in_functions(m)] == []


def test_the_guards_find_a_table_and_a_rule_written_in_code(tmp_path):
    """The test above can fail: a module with a tuple of words, a phrase, a regex, a keyword rule, a
    family's nouns and words inside a function is caught; a syntax regex, numbers and a pair are not."""
    (tmp_path / "m.py").write_text(
        'import re\nA = ("x", "y")\nB = "three words here"\nC = re.compile(r"a|b", re.I)\nD = 3\nE = ("one",)\n'
        'F = frozenset("a b".split())\nG = r"x|y|z"\n'
        'def f(t):\n    return re.search(r"nmap|port|scan", t) or re.match(r"\\d+|x", t) or nouns("movie film")\n'
        'def g(w, rng):\n    return w & {"a", "b", "c"} or rng.choice(("x", "y", "z"))\n'
        'def h(rng):\n    return rng.choice((1, 2, 3)) or ("p", "q") or {"a": 1, "b": 2}\n'
        'def i(v):\n    return {"cancel": "cancelled", "archive": "archived"}.get(v)\n'
        'def j(a):\n    return a.has("weather", "temperature", "temp")\n'
    )
    assert _literal_tables(tmp_path / "m.py") == ["m.py:2", "m.py:3", "m.py:4", "m.py:7", "m.py:8"]
    assert sorted(_keyword_rules(tmp_path / "m.py")) == ["m.py:10", "m.py:10", "m.py:18"]
    assert _words_in_functions(tmp_path / "m.py") == ["m.py:12", "m.py:16"]  # numbers and pairs stay code


def test_tables_come_back_in_the_shape_their_module_declares():
    from synth.simulator import vocab
    from synth.simulator.results import netsec
    from synth.simulator.values import strings

    raw = json.loads((DATA / "results/netsec.json").read_text(encoding="utf-8"))
    assert netsec._CVES == tuple(tuple(row) for row in raw["cves"]) and type(netsec._CVES[0][2]) is float
    assert isinstance(strings._QUOTED, re.Pattern) and strings._QUOTED.flags & re.IGNORECASE
    assert strings._ZONE.flags & re.IGNORECASE == 0 and strings._ZONE.match("Europe/Lisbon")
    assert isinstance(vocab.CITIES, tuple) and vocab.CITY_COORDS["Porto"] == (41.15, -8.61)
    assert table("results/netsec", "cves", tuple[tuple[str, str, float], ...]) == netsec._CVES
    assert tables.entries("results/netsec") is tables.entries("results/netsec")  # read once


@pytest.fixture
def fake_data(tmp_path, monkeypatch):
    monkeypatch.setattr(tables, "ROOT", tmp_path)
    tables.entries.cache_clear()
    yield tmp_path
    tables.entries.cache_clear()


def test_a_bad_table_names_the_file_the_entry_the_place_and_the_fix(fake_data):
    (fake_data / "words").mkdir()
    (fake_data / "words/good.json").write_text(
        json.dumps(
            {
                "rows": [["a", 1, 0.5], ["b", 2, 1.5]],
                "bad_rows": [["a", 1, 0.5], ["b", "2", 1.5]],
                "by_key": {"x": ["p", "q"], "y": ["r", 7]},
                "rule": {"re": "a|B", "flags": ["IGNORECASE"]},
                "broken": "a(",
                "numbers": {"1": "one", "2": "two"},
                "words": ["c", "a", "b"],
                "flag": True,
            }
        )
    )
    Row = tuple[tuple[str, int, float], ...]
    assert table("words/good", "rows", Row) == (("a", 1, 0.5), ("b", 2, 1.5))
    assert table("words/good", "rule", re.Pattern[str]).search("xb") is not None
    assert table("words/good", "numbers", dict[int, str]) == {1: "one", 2: "two"}
    assert list(table("words/good", "words", frozenset[str])) == list(frozenset(["c", "a", "b"]))
    assert table("words/good", "by_key", dict[str, tuple[str | int, ...]])["y"] == ("r", 7)
    assert table("words/good", "words", Any) == ("c", "a", "b")
    cases = {
        ("bad_rows", Row): "entry 'bad_rows'[1][1]: \"2\" is not int",
        ("by_key", dict[str, tuple[str, ...]]): "entry 'by_key'['y'][1]: 7 is not str",
        ("broken", re.Pattern[str]): "entry 'broken': \"a(\" does not compile",
        ("flag", int): "entry 'flag': true is not int",  # a bool is no int
        ("rows", tuple[str, ...]): "entry 'rows'[0]: [\"a\", 1, 0.5] is not str",
        ("missing", str): f"no entry 'missing', which {__name__} reads; add it",
    }
    for (name, shape), message in cases.items():
        with pytest.raises(TableError) as e:
            table("words/good", name, shape)
        assert str(e.value).startswith("synth/simulator/data/words/good.json: "), e.value
        assert message in str(e.value), e.value
        assert isinstance(e.value, SynthError)
    (fake_data / "words/broken.json").write_text("{oops")
    with pytest.raises(TableError, match=r"data/words/broken.json: not JSON .*fix the file"):
        table("words/broken", "rows", Row)
    with pytest.raises(TableError, match=r"data/words/absent.json: no such data file"):
        table("words/absent", "rows", Row)
    (fake_data / "words/list.json").write_text("[1, 2]")
    with pytest.raises(TableError, match=r"data/words/list.json: holds list; it must be one object"):
        table("words/list", "rows", Row)
