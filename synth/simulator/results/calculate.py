"""Results for calculators: an expression's value, an operation over the numbers given, a unit or
currency conversion, a BMI, or a plausible number in the unit the tool's words imply. Arithmetic
is computed, never guessed, wherever the call gives the numbers it needs."""

from __future__ import annotations

import math
import random
import re
import statistics
from typing import Any

from synth.records import ToolSpec
from synth.simulator.results import entities as E
from synth.simulator.results import shapes
from synth.simulator.results.arithmetic import evaluate
from synth.simulator.tables import table
from synth.simulator.values.values import Context, words

# quantity, then each unit=its size in the quantity's base unit (metre, kilogram, litre, second)
_SIZES = table("results/calculate", "sizes", str)
_UNIT = {
    unit: (quantity, int(size) if size.isdigit() else float(size))
    for quantity, *sizes in (line.split() for line in _SIZES.strip().splitlines())
    for unit, size in (pair.split("=") for pair in sizes)
}
_ALIAS = dict(  # how people write a unit: the unit
    pair.split(":")
    for pair in """
    meter:m metre:m kilometer:km kilometre:km centimeter:cm millimeter:mm inch:in foot:ft feet:ft yard:yd mile:mi
    gram:g kilogram:kg milligram:mg pound:lb lbs:lb ounce:oz tonne:t ton:t liter:l litre:l milliliter:ml
    millilitre:ml gallon:gal second:s sec:s minute:min hour:h hr:h celsius:c fahrenheit:f kelvin:k °c:c °f:f
""".split()
)


def _unit(u: Any) -> str | None:
    s = str(u).strip().lower().replace(" ", "")
    s = _ALIAS.get(s, _ALIAS.get(s.rstrip("s"), s))
    return s if s in _UNIT else (s.rstrip("s") if s.rstrip("s") in _UNIT else None)


def _convert(value: float, a: str, b: str) -> float | None:
    (qa, fa), (qb, fb) = _UNIT[a], _UNIT[b]
    if qa != qb:
        return None
    if qa == "temp":
        c = value if a == "c" else (value - 32) * 5 / 9 if a == "f" else value - 273.15
        return c if b == "c" else c * 9 / 5 + 32 if b == "f" else c + 273.15
    return value * fa / fb


_ARITH = {
    "sum": lambda n: sum(n),
    "subtract": lambda n: n[0] - sum(n[1:]),
    "multiply": lambda n: math.prod(n),
    "divide": lambda n: n[0] / n[1] if len(n) > 1 and n[1] else None,
    "power": lambda n: n[0] ** n[1] if len(n) > 1 and abs(n[1]) < 32 else None,
    "sqrt": lambda n: math.sqrt(n[0]) if n[0] >= 0 else None,
    "modulo": lambda n: n[0] % n[1] if len(n) > 1 and n[1] else None,
    "average": lambda n: sum(n) / len(n),
    "min": min,
    "max": max,
    "floor": lambda n: math.floor(n[0]),
    "ceil": lambda n: math.ceil(n[0]),
    "round": lambda n: round(n[0], int(n[1]) if len(n) > 1 else None),
    "abs": lambda n: abs(n[0]),
    "median": lambda n: sorted(n)[len(n) // 2] if len(n) % 2 else sum(sorted(n)[len(n) // 2 - 1 : len(n) // 2 + 1]) / 2,
    "factorial": lambda n: math.factorial(int(n[0])) if 0 <= n[0] <= 20 else None,
    # counting and number theory: the formula's value, never a number of the right size
    "permutations": lambda n: _whole(math.perm, n),
    "combinations": lambda n: _whole(math.comb, n),
    "gcd": lambda n: _whole(math.gcd, n),
    "lcm": lambda n: _whole(math.lcm, n),
    "mode": lambda n: statistics.multimode(n)[0],
    "variance": lambda n: statistics.pvariance(n) if len(n) > 1 else None,
    "stdev": lambda n: statistics.pstdev(n) if len(n) > 1 else None,
}
_OTHER_NAMES = table("results/calculate", "other_names", str)
_ARITH |= {name: _ARITH[op] for name, op in (pair.split(":") for pair in _OTHER_NAMES.split())}
# the sign that joins the operands when the result shows its expression, by the operation's name
_SIGN = table("results/calculate", "sign", dict[str, str])


def _whole(f: Any, n: list[float]) -> int | None:
    """``f`` over whole numbers (``perm(n, k)``, ``gcd(a, b)``); None when they are not whole or too large."""
    if not all(float(x).is_integer() and 0 <= x <= 10**6 for x in n[:2]) or (
        f in (math.perm, math.comb) and n[0] > 200
    ):
        return None
    return f(*(int(x) for x in n[:2])) if len(n) > 1 else f(int(n[0])) if f is math.perm else None


_GUESS = table("results/calculate", "guess", tuple[tuple[str, str, int | float, int], ...])
# words a record or a test draws from, by the function (and field) that uses them
_POOLS = table("results/calculate", "pools", dict[str, tuple[str, ...]])
# words a parameter's or a tool's name is tested for, by the function that tests
_SETS = table("results/calculate", "sets", dict[str, frozenset[str]])


def calculate(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any]:
    """The computed answer when the call gives what it needs; otherwise a number of the right kind."""
    nums = E.numbers(args)
    w = words(tool.name)
    computed = _computed(w, args, nums, text)
    if computed is not None:
        return computed
    if "bmi" in w or " bmi" in text:
        return _bmi(args)
    if "convert" in w and any(
        isinstance(v, str) and "/" in v and v.split("/")[0] in _POOLS["calculate.America"] for v in args.values()
    ):
        return shapes.SHAPES["time"](tool, args, ctx, text)
    if "convert" in w and not nums:  # a file or text conversion, not a number
        return shapes.SHAPES["export"](tool, args, ctx, text)
    if "matrix" in text or "matrices" in text:
        return {"result": [[ctx.rng.randint(-9, 30) for _ in range(2)] for _ in range(2)], "shape": [2, 2]}
    return _estimate(args, nums, text, ctx.rng)


def _computed(w: list[str], args: dict[str, Any], nums: list[float], text: str) -> dict[str, Any] | None:
    """An expression's value, an operation over the numbers, or a unit or currency conversion."""
    expr = next(
        (v for k, v in args.items() if isinstance(v, str) and set(words(k)) & _SETS["computed.expr"]),
        None,
    )
    if expr is not None and (value := evaluate(expr)) is not None:
        return {"expression": expr, "result": value}
    op = next((x for x in w if x in _ARITH), None) or next(
        (x for x in re.findall(r"[a-z]+", text[:60]) if x in _ARITH), None
    )
    if op and nums and (out := _operation(op, nums)) is not None:
        return out
    return _conversion(args, nums)


def _operation(op: str, nums: list[float]) -> dict[str, Any] | None:
    try:
        value = _ARITH[op](nums)  # type: ignore[operator]
    except (OverflowError, ValueError, ZeroDivisionError):
        return None
    if value is None:
        return None
    out: dict[str, Any] = {"result": round(value, 6) if isinstance(value, float) else value}
    if op in _SIGN:
        out["expression"] = f" {_SIGN[op]} ".join(_num(n) for n in nums)
    return out


def _conversion(args: dict[str, Any], nums: list[float]) -> dict[str, Any] | None:
    """Units the call names as from and to, or two currencies, converted at known factors and rates."""
    units = [
        (k, v) for k, v in args.items() if isinstance(v, str) and _unit(v) and set(words(k)) & _SETS["conversion.units"]
    ]
    if len(units) >= 2 and nums:
        a, b = _unit(units[0][1]), _unit(units[1][1])
        if a and b and (value := _convert(nums[0], a, b)) is not None:
            return {"value": nums[0], "from_unit": units[0][1], "to_unit": units[1][1], "result": round(value, 4)}
    currencies = [v for v in args.values() if isinstance(v, str) and E.rate(v, "USD")]
    if len(currencies) >= 2 and (r := E.rate(currencies[0], currencies[1])) is not None:
        amount = nums[0] if nums else 1
        return {
            "amount": amount,
            "from": currencies[0].upper(),
            "to": currencies[1].upper(),
            "rate": round(r, 6),
            "result": round(amount * r, 2),
            "date": "2026-06-01",
        }
    return None


def _bmi(args: dict[str, Any]) -> dict[str, Any]:
    weight = next((v for k, v in args.items() if "weight" in k.lower() and isinstance(v, (int, float))), 72)
    height = next((v for k, v in args.items() if "height" in k.lower() and isinstance(v, (int, float))), 175)
    h = height / 100 if height > 3 else height
    bmi = round(weight / (h * h), 1) if h else 24.2
    cat = "underweight" if bmi < 18.5 else "normal weight" if bmi < 25 else "overweight" if bmi < 30 else "obese"
    return {"bmi": bmi, "unit": "kg/m²", "category": cat}


def _estimate(args: dict[str, Any], nums: list[float], text: str, rng: random.Random) -> dict[str, Any]:
    """A number of the order and unit the call implies: its argument's unit suffix, or the quantity named."""
    suffix = next(
        (
            k.rsplit("_", 1)[1]
            for k, v in args.items()
            if isinstance(v, (int, float)) and "_" in k and k.rsplit("_", 1)[1] in _POOLS["estimate.suffix"]
        ),
        None,
    )
    if suffix and nums:  # "from_dose_mg": the answer is in the same unit, of the same order
        return {
            "result": round(nums[0] * rng.uniform(0.25, 4), 1),
            "unit": suffix.upper() if suffix in ("usd", "eur") else suffix,
        }
    unit, lo, hi = next(((u, lo, hi) for key, u, lo, hi in _GUESS if re.search(rf"\b{key}", text[:200])), ("", 1, 1000))
    value = round(rng.uniform(lo, hi), 1 if hi < 200 else 0)
    out: dict[str, Any] = {"result": int(value) if hi >= 200 else value, "unit": unit} if unit else {"result": value}
    if unit in ("%", "percentile") and ("risk" in text or "score" in text):
        out["interpretation"] = "low" if value < 10 else "intermediate" if value < 20 else "high"
    return out


def _num(n: float) -> str:
    return str(int(n)) if float(n).is_integer() else str(n)
