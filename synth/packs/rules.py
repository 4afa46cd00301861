"""The rules a pack entry must keep: stated once, here. The pack prompt renders every rule with its worked
example (prompts/pack.system.j2), and the checker (synth.packs.check) tags each problem with the rule it
breaks, so what the model is told and what it is held to cannot drift apart. A new rule (worlds, say) is a
new ``Rule`` here plus its check.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    id: str  # short, quoted in checker messages: "[goal-set]"
    says: str  # the rule, as the prompt states it
    wrong: str  # a short example that breaks it
    right: str  # the same example, kept


RULES: tuple[Rule, ...] = (
    Rule(
        "tools",
        "Write one entry per tool you are asked for, under its exact name, and for no other tool.",
        '"get_forecast" for a tool named "get_weather_forecast_tool"',
        '"get_weather_forecast_tool": {...}',
    ),
    Rule(
        "shape",
        'An entry has "goals" (at least 3), "results" (at least 1) and "answers" (at least 2); the keys '
        "values, cases, ask, say, failures, feeds and world are optional; no other keys.",
        '{"goals": ["..."], "examples": [...]}',
        '{"goals": ["...", "...", "..."], "values": {...}, "results": [{...}], "answers": ["...", "..."]}',
    ),
    Rule(
        "params",
        "The keys of values, cases, ask and say are parameters of that tool, spelled as in its input schema.",
        '"values": {"location": [...]} for a tool whose parameter is "city"',
        '"values": {"city": ["Porto", "Kraków"]}',
    ),
    Rule(
        "required",
        "Every required parameter has values: a list, a range, or a key in every case.",
        'no values for the required parameter "query"',
        '"values": {"query": ["lisinopril cough", "statin myopathy"]}',
    ),
    Rule(
        "valid-values",
        "Every value, and every value a generator in it makes, is valid for the parameter's schema: type, "
        "enum, format, pattern, minimum and maximum. Numbers are numbers, booleans are true/false. Braces "
        "in a value are only generators.",
        '"limit": ["ten", "20"] for an integer parameter with maximum 50',
        '"limit": {"range": [5, 50]}',
    ),
    Rule(
        "phrase",
        'A "phrase" for a value that is not an enum or boolean contains the value exactly as it is sent.',
        '"days": {"range": [1, 10], "phrase": {"7": "next week"}}',
        '"days": {"range": [1, 10], "phrase": {"7": "the next 7 days"}}',
    ),
    Rule(
        "goal-slots",
        "A goal's {slots} are parameters that have values (or a case) in this entry; each slot is said in "
        "the request. Leave a required parameter out of some goals: the assistant will ask for it.",
        '"Find flights to {destination}" when destination has no values',
        'add "values": {"destination": ["Lisbon", "Osaka"]}, or write the goal without the slot',
    ),
    Rule(
        "goal-set",
        "A goal's \"set\" only implies an enum value, a boolean or the parameter's default; any other value "
        "must be said in the goal as a {slot}, so the call is grounded in the user's words.",
        '{"text": "Show my open tickets", "set": {"assignee": "ana@example.com"}}',
        '{"text": "Show the open tickets assigned to {assignee}", "set": {"state": "open"}} (state is an enum)',
    ),
    Rule(
        "no-tool-names",
        "A goal never contains a tool name (or a parameter name): people say what they want, not which tool.",
        '"Run search_papers for CRISPR"',
        '"Find me recent papers on CRISPR base editing"',
    ),
    Rule(
        "result-slots",
        'In results, "{param}" echoes an argument only for parameters with values in this entry: an optional '
        "parameter you echo needs values too; anything else is a fixed value or a generator ({int:1-9}, "
        "{num:1.5-9.9}, {pick:a|b}, {date:3}, {fake:name}, {id:AB-####}); {n} only inside $repeat.",
        '"result": {"overwritten": "{overwrite}"} when overwrite has no values',
        'add "values": {"overwrite": [true, false]}, or write "overwritten": "{pick:true|false}"',
    ),
    Rule(
        "answer-slots",
        "Answers use {r.path} for result fields that every result template has (list items by number: "
        "{r.items.0.name}), {count:r.list} for a list's length, and {param} for parameters with values.",
        '"It will be {r.temperature} degrees" when the results hold "temp_c"',
        '"It will be {r.temp_c} °C in {city}"',
    ),
    Rule(
        "goal-items",
        "Every goal lists what it asks as its items (a single question is one item; a feed's goals too): each "
        'period ("week, month and all time"), the number of things wanted ("the first 5 comments", "the latest '
        'papers": name them all with {each:r.list|$name}), each entity, a verdict ("is it maintained?": yes or no '
        'with the figure that decides, and "when"/"otherwise" when the result can go either way), a comparison. '
        'Its answer is written from them ("answer" frames them at {items}), so none is left unsaid and nothing '
        'unasked is added; an item the result may lack says why ("missing").',
        '"Give me its fee history: week, month and all time." answered by the tool\'s answers, which say '
        "24 hours, the week and since launch",
        '{"text": "Give me {protocol}\'s fees: week, month and all time.", "answer": "{protocol} took {items} '
        'in fees.", "items": [{"ask": "week", "say": "${r.total7d} over the week"}, {"ask": "month", "say": '
        '"${r.total30d} over 30 days"}, {"ask": "all time", "say": "${r.totalAllTime} all time"}]}',
    ),
    Rule(
        "item-slots",
        "An item's say and otherwise, and a goal's answer, use slots every result template of the goal's "
        "(last) tool fills, as answers do; in a feed's goal {first:r.path} reads the first tool's result. A "
        "verdict's when is 'SLOT OP VALUE' (OP one of < <= > >= == != has; VALUE a literal or another slot; has: "
        "the list or text holds VALUE).",
        '{"ask": "maintained", "say": "Yes", "when": "recent"}',
        '{"ask": "maintained", "say": "Yes: the newest release came out {r.0.created_at}.", "when": '
        '"r.0.created_at >= 2026-01-01", "otherwise": "Not lately: the newest release is from {r.0.created_at}."}',
    ),
    Rule(
        "failure-slots",
        "A failure's answer uses only fields of that failure's own result (and parameters with values).",
        '{"result": {"error": "not found"}, "answer": "No match for {r.items.0.title}"}',
        '{"result": {"error": "not found"}, "answer": "Nothing matched {query}; try a broader term."}',
    ),
    Rule(
        "feed-target",
        'A feed goes "to" another tool of this server and names one of its parameters as "param".',
        '{"to": "get_detail", "param": "identifier"} when get_detail takes "id"',
        '{"to": "get_detail", "param": "id", "path": "items.0.id"}',
    ),
    Rule(
        "feed-path",
        "A feed's path is in every result template of this tool.",
        '"path": "results.0.id" when one template has "items" instead',
        '"path": "items.0.id", with "items" in every template',
    ),
    Rule(
        "feed-type",
        "The value at a feed's path is valid for the target parameter (an integer for an integer, an id in "
        "the id's pattern).",
        '"path": "items.0.name" feeding an integer "id"',
        '"path": "items.0.id" where id is "{int:1000-9999}"',
    ),
    Rule(
        "feed-goals",
        "A feed's goals never say the fed value: it comes from the first tool's result.",
        '"Get the details of paper {id}" as a feed goal into id',
        '"Find papers on {query} and open the newest one"',
    ),
)

# A server whose tools read and change things (docs, papers, orders, events) has a world: write it once, under
# "world" beside "tools", and give each tool that touches it a "world" entry (synth.packs.world).
WORLD_RULES: tuple[Rule, ...] = (
    Rule(
        "world-kinds",
        'A tool\'s "world": {"op": ..., "entity": kind} names a kind declared under "world": {"entities": '
        '{kind: {"id": field, "seed": [...]}}}; every seeded entity has the id field, no id twice.',
        '"world": {"op": "read", "entity": "paper"} with no "paper" under world.entities',
        '"world": {"entities": {"paper": {"id": "pmid", "seed": [{"pmid": "38112233", "title": "..."}]}}}',
    ),
    Rule(
        "world-seed",
        "Seed at least 10 entities per kind (a few dozen is better), in the server's own field names, the "
        'names the result templates use, so a result shows the entity\'s values; set "open": true for a '
        "holding with no end (PubMed, a news index), where unknown ids are made from the result template.",
        '"seed": [{"id": 1}] (one entity, no fields the results show)',
        '"seed": [{"$repeat": 24, "$item": {"pmid": "{id:40######}", "title": "{pick:...}", "journal": "..."}}]',
    ),
    Rule(
        "world-params",
        '"by", "match", the keys of "filter" and "set", and "limit" are parameters of the tool; "key", the '
        'values of "filter" and "fields" are fields of the entity ("set" may write a new field, or "*": '
        "the fields of an object parameter).",
        '"world": {"op": "search", "entity": "doc", "match": ["q"]} when the parameter is "query"',
        '"world": {"op": "search", "entity": "doc", "match": ["query"], "limit": "limit", "path": "results"}',
    ),
    Rule(
        "world-path",
        'read, update and delete name the entity with "by" ("key" when the parameter holds another field '
        'than the id, such as a slug); "path" points at the record (read, create, update) or the list '
        "(search, list) in every result template.",
        '"world": {"op": "read", "entity": "doc"} (no "by"), or "path": "items" when results hold "docs"',
        '"world": {"op": "read", "entity": "doc", "by": "slug", "key": "slug"}',
    ),
    Rule(
        "world-draw",
        "A parameter that must name an entity of the world (an id to read, a doc to rename) draws it: "
        '{"entity": kind} or {"entity": kind, "field": name}; values drawn for one call come from one entity.',
        '"doc_id": ["DOC-1", "DOC-2"] (ids that may not be in the world)',
        '"doc_id": {"entity": "doc"}, "namespace": {"entity": "doc", "field": "namespace"}',
    ),
    Rule(
        "world-search",
        "A search returns only the entities that have every word of the request (a server whose search ranks "
        'everything, matching or not, says "fuzzy": true), so each value a search draws for its "match" '
        "parameters names at least one seeded entity; an open kind makes matches for any value from its item "
        "template, so that template writes titles and summaries from the request, never a Faker phrase "
        '("{fake:catch_phrase}") shown as what was found.',
        '"query": ["dentist"] with no seeded event about a dentist',
        '"query": ["dentist"] and a seeded {"title": "Dentist appointment", ...}',
    ),
    Rule(
        "world-made",
        "An open kind's made-up matches read like the catalogue's own items and unlike each other: their title and "
        'summary take 4 to 8 forms ({"$pick": [...]}, each form with its own slots), the request\'s words at '
        "different places with other words around them, never one stem with a changing first word.",
        '"title": "{pick:Revisiting|Scaling|Rethinking} {query}", "summary": "We study {query} and report results."',
        '"title": {"$pick": ["{query}: a survey", "Towards robust {query} under distribution shift", "What limits '
        '{query}?", "Scaling laws for {query}"]}, "summary": {"$pick": ["We benchmark {query} on ...", "..."]}',
    ),
    Rule(
        "world-touch",
        "Every tool whose results describe a kind's entities reads them from the world, derived views included "
        '(a user\'s submissions: "op": "list" with "filter": {"username": "username"}; a story\'s comments; a '
        "gem's versions), so two tools never describe one entity two ways.",
        'a "get_user_submissions" with no "world" whose template lists {"titleSlug": "{pick:two-sum|3sum}", '
        '"title": "{pick:Two Sum|3Sum}"}',
        'a "submission" kind with "refs": {"titleSlug": "problem"}, and "world": {"op": "list", "entity": '
        '"submission", "filter": {"username": "username"}, "limit": "limit", "path": "submissions"}',
    ),
    Rule(
        "world-refs",
        'A field that names another entity is a ref: "refs": {field: kind} on its kind (or {field: {"entity": kind, '
        '"key": field of that kind, "agree": {here: there}}}); the title it shows is the named entity\'s, and '
        "every seeded value names an entity the world holds.",
        'a submission seeded {"titleSlug": "two-sum", "title": "3Sum"}',
        '"submission": {"id": "id", "refs": {"titleSlug": "problem"}, "seed": [...]}: its title is the problem\'s',
    ),
    Rule(
        "world-order",
        'A list or search that claims an order (newest first, sorted by points, a "sort" parameter) says it: '
        '"order": "-points" (highest first) or "order": "created", and "sort": param when the call picks the '
        "field; the list is sorted by that field of the entities.",
        'a list_stories described "top stories, highest score first" with no "order"',
        '"world": {"op": "list", "entity": "story", "order": "-score", "limit": "limit", "path": "stories"}',
    ),
    Rule(
        "world-writes",
        "A create's result shows the values the call sent; a value the call may leave out is the schema's "
        'default, or what the service itself assigns, said in "assign" (docker names a container: "assign": '
        '{"name": "{pick:eager_hopper|quirky_turing}"}), never a pool value the person did not give. A read, '
        "list or search after a write shows it.",
        '"results": [{"name": "{name}", "ports": "{ports}"}] drawn from the pools when the call sent only an image',
        '"world": {"op": "create", "entity": "container", "set": {"image": "image", "name": "name"}, '
        '"assign": {"name": "{pick:eager_hopper|quirky_turing}"}}',
    ),
    Rule(
        "world-one",
        'A server whose state is one object (a chess board, a session, a cart) has a kind with "one": true and '
        'one seeded object with no id; its tools read it and update it with no "by" ("append": {param: '
        'list field}, "cycle": {field: [values]} for a turn), and "create" starts it again.',
        'a get_turn whose result is "{pick:white|black}"',
        '"board": {"one": true, "seed": [{"fen": "...", "turn": "white", "moves": []}]}; make_move: {"op": '
        '"update", "entity": "board", "append": {"move_san": "moves"}, "cycle": {"turn": ["white", "black"]}}',
    ),
    Rule(
        "world-answers",
        "With a world, answers name result fields ({r.title}), never one entity's facts written out: the "
        "same tool serves every entity.",
        '"The doc explains the onboarding steps: laptop, accounts..." for any doc',
        '""{r.title}" by {r.owner}: {r.body}"',
    ),
)
RULES = RULES + WORLD_RULES
# rules pack check reports as warnings on packs written before them, and pack build holds a model's answer to
BUILT = ("world-made",)

BY_ID = {rule.id: rule for rule in RULES}
