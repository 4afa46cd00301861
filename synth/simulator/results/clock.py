"""Results for clock tools: the time now in the zone asked for (or of the place or coordinates
asked about), and a time converted between two zones. Fixed offsets for June 2026 (summer time).
Used through ``synth.simulator.results.shapes``."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from synth.records import ToolSpec
from synth.simulator import vocab
from synth.simulator.results.entities import arg
from synth.simulator.tables import table
from synth.simulator.values.values import Context

_OFFSETS = vocab.ZONE_OFFSETS


_CITY_TZ = table("results/clock", "city_tz", dict[str, str])
# words a record or a test draws from, by the function (and field) that uses them
_POOLS = table("results/clock", "pools", dict[str, tuple[str, ...]])


def _zone(args: dict[str, Any], ctx: Context) -> str:
    """The time zone asked for, or the one of the place (or coordinates) asked about."""
    tz = arg(args, *_POOLS["zone.timezone"])
    if tz:
        return tz
    place = arg(args, *_POOLS["zone.city"])
    if place in _CITY_TZ:
        return _CITY_TZ[place]
    m = re.match(r"\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)", str(place or ""))
    lat_lon = (
        (float(m.group(1)), float(m.group(2)))
        if m
        else (
            arg(args, "lat", "latitude", types=(int, float)),
            arg(args, *_POOLS["zone.lon"], types=(int, float)),
        )
    )
    if lat_lon[0] is not None and lat_lon[1] is not None:
        near = min(
            (c for c in vocab.CITY_COORDS if c in _CITY_TZ),
            key=lambda c: abs(vocab.CITY_COORDS[c][0] - lat_lon[0]) + abs(vocab.CITY_COORDS[c][1] - lat_lon[1]),
        )
        return _CITY_TZ[near]
    return _CITY_TZ.get(ctx.city or "", ctx.rng.choice(tuple(_OFFSETS)))


def time_now(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any]:
    zones = [v for v in args.values() if isinstance(v, str) and v in _OFFSETS]
    clock = next((v for v in args.values() if isinstance(v, str) and re.fullmatch(r"\d{1,2}:\d{2}", v)), None)
    if len(zones) >= 2 and clock:  # "16:30 in New York is what in Tokyo?"
        h, m = map(int, clock.split(":"))
        minutes = h * 60 + m + (_OFFSETS[zones[1]] - _OFFSETS[zones[0]]) * 60
        shift = "" if 0 <= minutes < 1440 else " (next day)" if minutes >= 1440 else " (previous day)"
        return {
            "source": f"{clock} {zones[0]}",
            "target": f"{minutes % 1440 // 60:02d}:{minutes % 60:02d}{shift} {zones[1]}",
            "difference_hours": _OFFSETS[zones[1]] - _OFFSETS[zones[0]],
        }
    tz = _zone(args, ctx)
    off = _OFFSETS.get(tz, 0)
    t = dt.datetime(2026, 6, 1, 9, ctx.rng.randint(0, 59), ctx.rng.randint(0, 59)) + dt.timedelta(hours=off)
    return {
        "datetime": t.strftime("%Y-%m-%dT%H:%M:%S") + f"{'+' if off >= 0 else '-'}{abs(off):02d}:00",
        "timezone": tz,
        "day_of_week": t.strftime("%A"),
        "unix": 1780304400 + (t - dt.datetime(2026, 6, 1, 9) - dt.timedelta(hours=off)).seconds,
    }
