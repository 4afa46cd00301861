"""The store: a stateful online shop on SQLite that synth ships as an MCP server (``synth serve store``).

    seed.py     schema + deterministic seed data (Faker, one seed)     catalog.py  the 50 product types
    models.py   what tools take and return (pydantic; money as "12.34") shop.py     the rules, on SQLite
    server.py   the MCPServer: tools, schemas, the policy as instructions
    state.py    the canonical state hash (stdlib only; verify.py files inline it)
    (its registry entry is dumped from the server's own tools/list by synth.live.store_entry)
    pack.py     the server pack, with real values of the seed-0 store (pack_tools.py: what each tool says)

It imports nothing from synth above ``synth.errors``/``synth.records`` (layer "core").
"""
