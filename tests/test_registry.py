"""Registry loading, schema normalisation and lint, on real server files and hand-written bad cases.

Fixtures live in tests/fixtures/registry/: ``real/`` holds verbatim copies of messy servers from the
Toucan crawl, ``shapes/`` one file per accepted file shape, ``bad/`` one file per defect.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from synth.errors import RegistryError
from synth.records import Problem, Registry, ToolSpec, content_hash
from synth.registry import format_problem, lint, load_registry, normalize_schema
from synth.registry.load import problem_key
from synth.registry.metaschema import _flat_2020_12

REG = Path(__file__).parent / "fixtures" / "registry"
REAL, SHAPES, BAD = REG / "real", REG / "shapes", REG / "bad"
DEFAULT = Path(__file__).resolve().parents[1] / "registry"


@pytest.fixture(scope="module")
def real() -> Registry:
    return load_registry(REAL)


@pytest.fixture(scope="module")
def shapes() -> Registry:
    return load_registry(SHAPES)


@pytest.fixture(scope="module")
def bad() -> Registry:
    return load_registry(BAD)


def tool(reg: Registry, server: str, name: str) -> ToolSpec:
    found = reg.server(server).tool(name)
    assert found is not None, f"{server}/{name} was not loaded"
    return found


def problems(reg: Registry, file: str, tool_name: str | None = None) -> list[Problem]:
    return [p for p in reg.problems if p.file == file and (tool_name is None or p.tool == tool_name)]


def valid(schema: dict[str, Any], instance: Any) -> bool:
    return Draft202012Validator(schema).is_valid(instance)


# --- real servers ---------------------------------------------------------------------


def test_real_defs_tool_validates_real_arguments(real: Registry) -> None:
    # jxnl/python-apple-mcp: pydantic output with "$defs" and Optional fields inside the definition
    schema = tool(real, "@jxnl/python-apple-mcp", "create_event").input_schema
    assert "$ref" not in json.dumps(schema) and "$defs" not in schema
    event = {"title": "Dentist", "start_date": "2025-07-01 09:00", "end_date": "2025-07-01 10:00"}
    assert valid(schema, {"event": event})
    assert valid(schema, {"event": {**event, "location": "Porto", "is_all_day": False}})
    assert not valid(schema, {"event": {"title": "Dentist", "start_date": "2025-07-01 09:00"}})  # end_date missing
    assert not valid(schema, {"event": {**event, "is_all_day": "yes"}})
    assert not valid(schema, {})
    location = schema["properties"]["event"]["properties"]["location"]
    assert location == {"type": "string", "title": "Location"}  # Optional[str] = None -> plain string


def test_defs_enum_referenced_inside_optional_anyof(real: Registry) -> None:
    schema = tool(real, "@starfishdata/biomcp_test", "trial_searcher").input_schema
    status = schema["properties"]["recruiting_status"]
    assert {"enum": ["OPEN", "CLOSED", "ANY"], "title": "RecruitingStatus", "type": "string"} in status["anyOf"]
    assert valid(schema, {"call_benefit": "find trials", "recruiting_status": "OPEN", "lat": 41.1})
    assert not valid(schema, {"call_benefit": "find trials", "recruiting_status": 5})
    assert schema["properties"]["lat"] == {"type": "number", "title": "Lat"}


def test_schema_hash_is_the_hash_of_the_schema_as_given(real: Registry) -> None:
    for server in real.servers:
        doc = json.loads((REAL / server.source).read_text())
        originals = {t["name"]: t["inputSchema"] for t in doc["tools"]}
        for t in server.tools:
            assert t.schema_hash == content_hash(originals[t.name])
    again = load_registry(REAL)
    assert [t.schema_hash for t in again.tools] == [t.schema_hash for t in real.tools]


def test_real_double_wrapped_schema_is_unwrapped(real: Registry) -> None:
    schema = tool(real, "@6/mcp-server-rubygems", "search_rubygems").input_schema
    assert set(schema["properties"]) == {"query", "limit"}
    assert schema["required"] == ["query"]
    assert valid(schema, {"query": "rails", "limit": 5}) and not valid(schema, {"limit": 5})
    wrapped = [p for p in problems(real, "6__mcp-server-rubygems.json", "search_rubygems") if "wrapped" in p.what]
    assert [p.pointer for p in wrapped] == ["/tools/1/inputSchema/properties"]


def test_real_leaked_ctx_is_removed(real: Registry) -> None:
    count = tool(real, "@AlexKissiJr/unrealmcp", "get_actor_count")
    assert count.properties == {} and count.required == []
    assert any(
        p.pointer == "/tools/9/inputSchema/properties/ctx" and p.severity == "warning"
        for p in problems(real, "AlexKissiJr__unrealmcp.json", "get_actor_count")
    )


def test_real_draft04_bounds_and_allof_and_path_refs(real: Registry) -> None:
    pages = tool(real, "@sylphxltd/pdf-reader-mcp", "read_pdf").input_schema["properties"]["sources"]["items"]
    page_list = pages["properties"]["pages"]["anyOf"][0]["items"]
    assert page_list == {"type": "integer", "exclusiveMinimum": 0}  # was minimum 0 + exclusiveMinimum true
    fetch = tool(real, "@kazuph/mcp-fetch", "fetch").input_schema["properties"]
    assert "allOf" not in fetch["maxLength"] and fetch["maxLength"]["type"] == "number"
    builder = tool(real, "@HelloGGX/shadcn-vue-mcp", "component-builder").input_schema["properties"]
    assert builder["charts"]["items"] == builder["components"]["items"]  # "$ref": "#/properties/components/items"
    thinking = tool(real, "@Leghis/smart-thinking", "smartthinking").input_schema
    confidence = thinking["properties"]["visualizationOptions"]["properties"]["filters"]["properties"][
        "metricThresholds"
    ]["properties"]["confidence"]
    assert confidence["prefixItems"] == [{"type": "number"}, {"type": "number"}]  # draft-07 tuple items
    thresholds = {"confidence": [0.1, 0.9]}
    assert valid(thinking, {"thought": "x", "visualizationOptions": {"filters": {"metricThresholds": thresholds}}})


def test_real_names_invalid_for_openai_are_kept_with_a_warning(real: Registry) -> None:
    votars = real.server("@scarletlabs-ai/votars-mcp")
    assert [t.name for t in votars.tools] == ["Votars fetch a specific transcript", "Votars fetch recent transcripts"]
    assert all("OpenAI" in p.what and p.pointer.endswith("/name") for p in problems(real, votars.source))


# --- file shapes ----------------------------------------------------------------------


def test_every_accepted_shape_loads(shapes: Registry) -> None:
    sources = {s.id: s.source for s in shapes.servers}
    assert sources == {
        "@acme/weather": "smithery_server.json",
        "@acme/maps": "servers.yaml",
        "servers#1": "servers.yaml",  # a list entry without qualifiedName: file stem + index
        "@acme/calendar": "servers_wrapped.json",
        "tools_list": "tools_list.json",  # tools/list result: the file stem
        "jsonrpc_tools": "jsonrpc_tools.json",
        "openai_tools": "openai_tools.json",
        "@acme/news": "nested/server.yml",  # read recursively, posix path relative to the root
    }
    assert [t.name for t in shapes.server("openai_tools").tools] == ["get_current_weather", "get_time"]
    assert tool(shapes, "openai_tools", "get_time").input_schema == {"type": "object", "properties": {}}
    assert tool(shapes, "jsonrpc_tools", "get_weather").required == ["location"]
    assert tool(shapes, "@acme/calendar", "list_events").required == ["start", "end"]  # from "parameters"
    assert tool(shapes, "@acme/maps", "geocode").required == ["address"]  # from "input_schema"
    assert shapes.problems and all(p.severity == "warning" for p in shapes.problems)
    assert not [p for p in shapes.problems if ".hidden" in p.file or p.file.endswith((".md", ".txt"))]


def test_yaml_dates_stay_strings(shapes: Registry) -> None:
    since = tool(shapes, "@acme/maps", "geocode").properties["since"]
    assert since["default"] == "2024-05-01"


def test_server_fields_output_schema_and_annotations(shapes: Registry) -> None:
    weather = shapes.server("@acme/weather")
    assert (weather.name, weather.category, weather.license) == ("Acme Weather", "Weather", "MIT")
    assert weather.description == "Forecasts for any city."
    forecast = tool(shapes, "@acme/weather", "get_forecast")
    assert forecast.output_schema is not None and forecast.output_schema["required"] == ["temperature", "conditions"]
    assert forecast.annotations == {"title": "Forecast", "readOnlyHint": True, "destructiveHint": None}
    assert "$schema" not in forecast.input_schema
    assert tool(shapes, "@acme/weather", "get_alerts").annotations is None
    assert [p.pointer for p in problems(shapes, "smithery_server.json")] == ["/tools/1/annotations"]
    assert shapes.server("tools_list").name == "tools_list"  # no displayName: the id


# --- bad files ------------------------------------------------------------------------


def test_a_broken_file_gives_one_error_and_the_rest_still_loads(tmp_path: Path) -> None:
    shutil.copy(BAD / "invalid.json", tmp_path / "invalid.json")
    shutil.copy(SHAPES / "smithery_server.json", tmp_path / "weather.json")
    reg = load_registry(tmp_path)
    assert [s.id for s in reg.servers] == ["@acme/weather"]
    broken = problems(reg, "invalid.json")
    assert len(broken) == 1 and broken[0].severity == "error"
    assert "line 4, column 18" in broken[0].what and broken[0].fix


def test_yaml_syntax_errors_and_unknown_shapes(bad: Registry) -> None:
    [yaml_error] = problems(bad, "invalid.yaml")
    assert yaml_error.severity == "error" and "line 4" in yaml_error.what
    [shape] = problems(bad, "unknown_shape.json")
    assert "unknown file shape" in shape.what and "tools/list" in shape.fix
    [rpc] = problems(bad, "jsonrpc_error.json")
    assert rpc.severity == "error" and rpc.pointer == "/error"


def test_broken_and_remote_refs_skip_only_that_tool(bad: Registry) -> None:
    refs = bad.server("@acme/refs")
    assert [t.name for t in refs.tools] == ["tree", "zod_style"]
    [broken] = problems(bad, "refs.json", "broken_ref")
    assert broken.severity == "error" and broken.pointer == "/tools/0/inputSchema/properties/item/$ref"
    assert "#/$defs/Missing" in broken.what and "skipped" in broken.what
    [remote] = problems(bad, "refs.json", "remote_ref")
    assert remote.severity == "error" and "not a local reference" in remote.what


def test_recursive_ref_is_cut_to_any_and_stays_usable(bad: Registry) -> None:
    schema = tool(bad, "@acme/refs", "tree").input_schema
    assert valid(schema, {"root": {"label": "a", "children": [{"label": "b", "children": [{"label": "c"}]}]}})
    assert not valid(schema, {"root": {"children": []}})  # label is required at the top
    [cut] = problems(bad, "refs.json", "tree")
    assert cut.severity == "warning" and "recursive $ref" in cut.what
    assert cut.pointer.startswith("/tools/2/inputSchema/definitions/Node")


def test_path_ref_keeps_its_own_description(bad: Registry) -> None:
    to = tool(bad, "@acme/refs", "zod_style").properties["to"]
    assert to["description"] == "Destination" and to["required"] == ["lat", "lon"]


def test_duplicate_tool_names_keep_the_first(bad: Registry) -> None:
    dupes = bad.server("@acme/dupes")
    assert [t.name for t in dupes.tools] == ["lookup", "other"]
    assert dupes.tool("lookup").required == ["id"]  # type: ignore[union-attr]
    [dup] = problems(bad, "duplicate_tools.json", "lookup")
    assert dup.severity == "error" and dup.pointer == "/tools/1/name" and "/tools/0" in dup.what


def test_duplicate_server_ids_name_both_files(bad: Registry) -> None:
    assert bad.server("@acme/twin").source == "dup_server_a.json"
    [dup] = problems(bad, "dup_server_b.json")
    assert dup.severity == "error" and "dup_server_a.json" in dup.what and dup.server == "@acme/twin"


def test_servers_without_usable_tools_are_skipped_with_a_reason(bad: Registry) -> None:
    ids = {s.id for s in bad.servers}
    assert "@acme/empty" not in ids and "@acme/unusable" not in ids
    assert any("no tools" in p.what and p.severity == "error" for p in problems(bad, "no_tools.json"))
    unusable = problems(bad, "all_unusable.json")
    assert any("none of the server's 3 tools is usable" in p.what for p in unusable)
    assert {p.pointer for p in unusable} >= {"/tools/0/name", "/tools/1/inputSchema/type", "/tools/2"}
    assert bad.skipped_servers == 3  # empty, unusable, and the second twin
    # all_unusable 3, duplicate 1, refs 2, not_an_object 1, empty/int names 2
    assert bad.skipped_tools == 9


def test_double_wrapped_and_leaked_ctx(bad: Registry) -> None:
    package = tool(bad, "@acme/wrapped", "find_package").input_schema
    assert package["required"] == ["name"] and package["additionalProperties"] is False
    assert set(package["properties"]) == {"name", "limit"}
    for name in ("summarize", "count_words"):
        t = tool(bad, "@acme/ctx", name)
        assert set(t.properties) == {"text"} and t.required == ["text"]
        [p] = problems(bad, "leaked_ctx.json", name)
        assert p.pointer.endswith("/inputSchema/properties/ctx") and p.severity == "warning"
    assert tool(bad, "@acme/ctx", "list_pods").required == ["context"]  # a real "context" argument stays


def test_tool_level_checks(bad: Registry) -> None:
    checks = bad.server("@acme/checks")
    assert [t.name for t in checks.tools] == [
        "no_description",
        "odd_description",
        "long_description",
        "storage.get",
        "no_schema",
        "bad_output",
    ]
    by_pointer = {p.pointer: p for p in problems(bad, "tool_checks.json")}
    assert by_pointer["/tools/0/name"].severity == "error"
    assert by_pointer["/tools/1/name"].severity == "error"
    assert by_pointer["/tools/2/description"].fix == "tools with no description are hard to call; add one"
    assert "not a string" in by_pointer["/tools/3/description"].what
    assert checks.tool("odd_description").description == ""  # type: ignore[union-attr]
    assert "over 1024" in by_pointer["/tools/4/description"].what
    assert "OpenAI" in by_pointer["/tools/5/name"].what and by_pointer["/tools/5/name"].severity == "warning"
    assert "no inputSchema" in by_pointer["/tools/6/inputSchema"].what
    dropped = by_pointer["/tools/7/outputSchema/properties/x/$ref"]
    assert dropped.severity == "warning" and dropped.what.startswith("outputSchema dropped")
    assert checks.tool("bad_output").output_schema is None  # type: ignore[union-attr]


def test_schema_quirks_are_normalised(bad: Registry) -> None:
    def props(name: str) -> dict[str, Any]:
        return tool(bad, "@acme/quirks", name).properties

    optional = props("optional_anyof")
    assert optional["limit"] == {"type": "integer", "title": "Limit"}
    assert optional["tags"] == {"type": "array", "items": {"type": "string"}}
    assert optional["id"]["anyOf"] == [{"type": "string"}, {"type": "integer"}]
    assert tool(bad, "@acme/quirks", "optional_anyof").input_schema["title"] == "optional_anyofArguments"
    lists = props("type_lists")
    assert lists["name"] == {"type": "string"} and lists["value"] == {"description": "Anything"}
    assert lists["n"]["type"] == ["number", "string"]
    assert tool(bad, "@acme/quirks", "no_type").input_schema == {"type": "object", "properties": {}, "required": []}
    assert tool(bad, "@acme/quirks", "required_missing").required == ["a"]
    assert set(props("never")) == {"a"}
    values = props("values")
    assert values["kind"]["const"] == "click" and values["color"]["default"] == "red"
    assert values["things"] == {"type": "array"}
    assert values["pair"]["prefixItems"] == [{"type": "number"}] * 2 and values["pair"]["items"] == {"type": "number"}
    assert values["rows"]["items"]["required"] == ["id"]
    [not_object] = problems(bad, "schema_quirks.json", "not_an_object")
    assert not_object.severity == "error" and not_object.pointer == "/tools/6/inputSchema/type"


def test_every_problem_says_where_what_and_how_to_fix(bad: Registry, real: Registry, shapes: Registry) -> None:
    for reg in (bad, real, shapes):
        for p in reg.problems:
            assert p.file and p.what and p.fix and p.fix != p.what
            if p.tool is not None:
                assert p.server and p.pointer.startswith("/tools/")
    files_with_errors = {p.file for p in bad.problems if p.severity == "error"}
    assert "README.md" not in files_with_errors


# --- lint -----------------------------------------------------------------------------


def test_lint_is_sorted_and_one_line_per_problem(bad: Registry) -> None:
    found = lint(BAD)
    assert found == sorted(found, key=problem_key) and len(found) == len(bad.problems)
    assert [p.file for p in found] == sorted(p.file for p in found)
    assert all("\n" not in format_problem(p) for p in found)
    line = format_problem(next(p for p in found if p.file == "duplicate_tools.json"))
    assert line.startswith("duplicate_tools.json: @acme/dupes: lookup at /tools/1/name: error: ")


def test_pointers_sort_numerically() -> None:
    def at(pointer: str) -> Problem:
        return Problem(severity="warning", file="f.json", server="s", tool="t", pointer=pointer, what="w", fix="f")

    ordered = sorted([at("/tools/10/name"), at("/tools/2/name"), at("")], key=problem_key)
    assert [p.pointer for p in ordered] == ["", "/tools/2/name", "/tools/10/name"]


@pytest.mark.parametrize("make", ["missing", "file", "empty", "readme_only"])
def test_unreadable_roots_raise_registry_error(tmp_path: Path, make: str) -> None:
    root = tmp_path / "reg"
    if make == "file":
        root.write_text("{}")
    elif make != "missing":
        root.mkdir()
        if make == "readme_only":
            (root / "README.md").write_text("# nothing")
    with pytest.raises(RegistryError, match=r"\.json|folder"):
        load_registry(root)
    with pytest.raises(RegistryError):
        lint(root)


def test_same_folder_gives_the_same_registry(tmp_path: Path, bad: Registry) -> None:
    # copy in reverse order: creation order must not matter, only names
    for path in sorted(BAD.iterdir(), reverse=True):
        shutil.copy(path, tmp_path / path.name)
    copy = load_registry(tmp_path)
    assert copy.model_dump(exclude={"root"}) == bad.model_dump(exclude={"root"})
    assert load_registry(BAD) == bad


# --- every normalised schema ----------------------------------------------------------


@pytest.mark.parametrize("folder", [REAL, SHAPES, BAD, DEFAULT], ids=["real", "shapes", "bad", "default"])
def test_every_usable_schema_is_clean_2020_12_and_stable(folder: Path) -> None:
    for t in load_registry(folder).tools:
        schema = t.input_schema
        Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object" and isinstance(schema["properties"], dict)
        text = json.dumps(schema)
        assert '"$ref"' not in text and '"$schema"' not in text and '"$defs"' not in text
        again, found = normalize_schema(schema)
        assert again == schema and found == [], t.key


def test_default_registry_loads_without_errors() -> None:
    """A first run on the shipped registry shows no error (Weaviate's second update_object is patch_object)."""
    reg = load_registry(DEFAULT)
    assert 30 <= len(reg.servers) <= 50 and 250 <= len(reg.tools) <= 400
    errors = [p for p in reg.problems if p.severity == "error"]
    assert errors == []
    assert {"update_object", "patch_object"} <= {
        t.name for t in reg.server("@agentesq/postman-weaviate-mcp-server").tools
    }
    assert all(isinstance(s.license, str) for s in reg.servers)


def test_fast_metaschema_agrees_with_check_schema() -> None:
    schemas: list[Any] = [
        t["inputSchema"] for f in sorted(REAL.glob("*.json")) for t in json.loads(f.read_text())["tools"]
    ]
    schemas += [
        {"type": "any"},
        {"required": "a"},
        {"properties": {"a": 1}},
        {"items": [{}]},
        {"minimum": "1"},
        {"pattern": "("},
        {"$defs": {"a": {"type": 3}}},
        {"anyOf": []},
        True,
        {"enum": 1},
        5,
    ]
    for schema in schemas:
        try:
            Draft202012Validator.check_schema(schema)
            official = True
        except SchemaError:
            official = False
        assert _flat_2020_12().is_valid(schema) == official, schema


_KEYS = st.sampled_from(
    [
        "type",
        "properties",
        "required",
        "items",
        "anyOf",
        "oneOf",
        "allOf",
        "$ref",
        "enum",
        "const",
        "default",
        "not",
        "additionalProperties",
        "$defs",
        "title",
        "minimum",
        "exclusiveMinimum",
        "pattern",
        "prefixItems",
        "dependencies",
        "a",
        "ctx",
    ]
)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 2),
    st.sampled_from(
        [
            "string",
            "object",
            "null",
            "any",
            "integer",
            "number",
            "array",
            "Str",
            "#/$defs/a",
            "#",
            "#/properties/a",
            "#/$defs/a/properties/a",
            "x",
            "(",
        ]
    ),
)
_JSONISH = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_KEYS, inner, max_size=4)),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_JSONISH)
def test_normalize_never_crashes_and_its_output_is_clean(schema: Any) -> None:
    result, found = normalize_schema(schema, file="f.json", pointer="/tools/0/inputSchema")
    assert all(p.pointer.startswith("/tools/0/inputSchema") for p in found)
    if result is None:
        assert any(p.severity == "error" for p in found)
        return
    Draft202012Validator.check_schema(result)
    assert result["type"] == "object" and isinstance(result["properties"], dict)
    assert normalize_schema(result) == (result, [])


def test_lint_and_generation_name_bounds_and_patterns_no_value_can_meet(tmp_path: Path) -> None:
    """minimum > maximum, minLength > maxLength, a pattern no enum value matches: an error with its pointer,
    the tool skipped with that reason (never a raw ``empty range for randrange()``); deep required values warn."""
    from synth.config import Settings
    from synth.pipeline import generate

    folder = tmp_path / "reg"
    folder.mkdir()
    shutil.copy(Path(__file__).parent / "fixtures" / "unsatisfiable.json.txt", folder / "bad.json")
    found = {(p.tool, p.severity, p.pointer): p.what for p in lint(folder)}
    assert (
        "minimum 10 and maximum 5 leave no integer allowed"
        in found[("range", "error", "/tools/0/inputSchema/properties/n/minimum")]
    )
    assert "minLength 8 is above maxLength 3" in found[("len", "error", "/tools/1/inputSchema/properties/s/minLength")]
    assert "matches none of the enum values" in found[("pat", "error", "/tools/2/inputSchema/properties/c/pattern")]
    deep = "/tools/3/inputSchema/properties/a/properties/b/properties/c/properties/d/properties/e"
    assert "the offline writer fills 4" in found[("deep", "warning", deep)]
    assert {t.name for t in load_registry(folder).tools} == {"deep", "ok"}
    manifest = generate(Settings(servers=folder, out=tmp_path / "out", n=6, seed=1, allow_fallback=True))  # no pack
    assert any("leave no integer allowed" in e for e in manifest["registry"]["errors"])
    reasons = {r for stage in manifest["funnel"]["dropped"].values() for r in stage}
    assert not any("ValueError" in r or "randrange" in r for r in reasons)
