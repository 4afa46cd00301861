"""Records about infrastructure: pods, nodes, deployments, containers, virtual machines, buckets,
gateway routes and webhooks, named after one of a few services so a conversation's records agree.
Part of the ``synth.simulator.results.things`` families."""

from __future__ import annotations

from typing import Any

from synth.simulator.results.entities import SERVICES, hexid, slot, stamp
from synth.simulator.results.kinds import Kinds
from synth.simulator.tables import table
from synth.simulator.values.values import Context, seed_faker, words

# words a record or a test draws from, by the function (and field) that uses them
_POOLS = table("results/infra", "pools", dict[str, tuple[str, ...]])


def record(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any] | None:
    """The record of the kind ``n`` names; a generic cluster resource for the kinds with no maker of their own."""
    make = _kind.find(n, text)
    if make is not None:
        return make(n, text, args, ctx, i)
    rng = ctx.rng
    return {
        "kind": rng.choice(_POOLS["record.kind"]),
        "name": _service(text, args, i),
        "namespace": _namespace(args),
        "status": "Active",
        "created_at": stamp(ctx, -60, -1),
    }


def _service(text: str, args: dict[str, Any], i: int) -> str:
    """The service this item of the result is about: distinct within a result, varied across calls."""
    return SERVICES[slot(text, args, i, len(SERVICES))]


def _namespace(args: dict[str, Any]) -> str:
    return next((v for k, v in args.items() if "namespace" in k.lower() and isinstance(v, str)), "production")


def _node_name(ctx: Context) -> str:
    return f"ip-10-0-{ctx.rng.randint(1, 9)}-{ctx.rng.randint(10, 250)}.ec2.internal"


def _pod(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    return {
        "name": f"{_service(text, args, i)}-{hexid(ctx, 9)}-{hexid(ctx, 5)}",
        "namespace": _namespace(args),
        "status": rng.choice(("Running",) * 4 + ("Pending", "CrashLoopBackOff")),
        "restarts": rng.choice((0, 0, 1, 3)),
        "node": _node_name(ctx),
        "age": f"{rng.randint(1, 30)}d",
    }


def _node(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    return {
        "name": _node_name(ctx),
        "status": "Ready",
        "cpu_cores": rng.choice((4, 8, 16)),
        "memory_gib": rng.choice((16, 32, 64)),
        "kubelet_version": "v1.30.4",
        "pods": rng.randint(12, 58),
    }


def _deployment(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    given = (v for k, v in args.items() if isinstance(v, str) and "name" in words(k) and i == 0)
    svc = next(given, _service(text, args, i))
    return {
        "name": svc,
        "namespace": _namespace(args),
        "replicas": (r := rng.choice((1, 2, 3, 4))),
        "ready": r,
        "image": f"registry.example.com/{svc}:{rng.randint(1, 4)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}",
        "updated_at": stamp(ctx, -6, 0),
    }


def _app_in_a_store(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> None:
    """An app in a store, not a deployed service: another family answers."""
    return None


def _container(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    svc = _service(text, args, i)
    return {
        "id": hexid(ctx, 12),
        "name": svc,
        "image": f"{svc}:latest",
        "status": f"Up {rng.randint(2, 70)} hours",
        "cpu_pct": round(rng.uniform(0.2, 65), 1),
        "memory_mb": rng.randint(40, 2048),
    }


def _instance(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    return {
        "id": f"i-0{hexid(ctx, 16)}",
        "name": _service(text, args, i),
        "type": rng.choice(_POOLS["instance.type"]),
        "state": rng.choice(_POOLS["instance.state"]),
        "region": rng.choice(_POOLS["instance.region"]),
        "private_ip": f"10.0.{rng.randint(1, 9)}.{rng.randint(10, 250)}",
    }


def _bucket(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    return {
        "name": f"{rng.choice(_POOLS['bucket.name'])}-{rng.choice(_POOLS['bucket.name_2'])}",
        "region": "eu-west-1",
        "objects": rng.randint(200, 900000),
        "size_gb": round(rng.uniform(0.5, 900), 1),
    }


def _gateway_entry(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    """An API gateway's route, target or plugin, or a webhook: where it sends traffic, when it has one."""
    rng = ctx.rng
    svc = _service(text, args, i)
    out = {
        "id": str(seed_faker(rng).uuid4()),
        "name": svc,
        "enabled": rng.random() < 0.85,
        "created_at": stamp(ctx, -90, -1),
    }
    if n == "webhook":
        out["url"] = f"https://hooks.example.com/{svc}"
    elif n in ("target", "route"):
        out["target"] = f"10.0.{rng.randint(1, 9)}.{rng.randint(10, 250)}:8080"
    return out


_kind = Kinds.load("results/infra", globals())
