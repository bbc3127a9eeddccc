"""`--engine local|ray` for `paraudit run` and `paraudit judges`: options and cluster output."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING

from rich.markup import escape
from rich.table import Table

from paraudit.cli.common import console, fail
from paraudit.runner.run import RunConfig

if TYPE_CHECKING:  # the Ray engine (and its Ray Data pass) is imported for --engine ray only
    from paraudit.engines.ray_engine import RayEngine

ENGINES = ("local", "ray")


def open_engine(
    engine: str,
    address: str | None = None,
    num_workers: int | None = None,
    gpus_per_worker: float | None = None,
    ray_data: bool | None = None,
) -> AbstractContextManager[RayEngine | None]:
    """The engine the options ask for: None for local, else a RayEngine to enter."""
    if engine not in ENGINES:
        raise fail(f"--engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    if engine == "local":
        given = [
            name
            for name, v in (
                ("--ray-address", address),
                ("--num-workers", num_workers),
                ("--gpus-per-worker", gpus_per_worker),
                ("--ray-data/--no-ray-data", ray_data),
            )
            if v is not None
        ]
        if given:
            raise fail(f"{', '.join(given)} only apply to --engine ray")
        return nullcontext(None)
    from paraudit.engines.ray_engine import RayEngine, RayOptions

    return RayEngine(
        RayOptions(
            address=address,
            num_workers=num_workers if num_workers is not None else 1,
            gpus_per_worker=gpus_per_worker if gpus_per_worker is not None else 0.0,
            ray_data=ray_data if ray_data is not None else True,
        )
    )


def print_cluster(engine: RayEngine) -> None:
    from paraudit.engines.ray_engine import pool_capacity

    console.print(f"Ray cluster: {engine.resources_text()}")
    table = Table()
    for col in ("node", "CPUs", "GPUs", "memory GB"):
        table.add_column(col)
    for n in engine.nodes():
        table.add_row(escape(n["node"]), f"{n['cpus']:g}", f"{n['gpus']:g}", f"{n['memory_gb']:g}")
    console.print(table)
    o = engine.options
    console.print(
        f"pool per judge: {o.num_workers} worker(s) × ({o.cpus_per_worker:g} CPU, "
        f"{o.gpus_per_worker:g} GPU); the cluster holds {pool_capacity(engine)} such workers"
    )
    console.print(
        "calls: each judge's unanswered calls as a Ray Dataset (judges with a rate limit: "
        "call by call through the pool)"
        if o.ray_data
        else "calls: one by one through each judge's actor pool (--no-ray-data)"
    )


def print_estimates(engine: RayEngine, cfg: RunConfig) -> None:
    from paraudit.engines.estimate import estimate_wall_times

    for e in estimate_wall_times(engine, cfg):
        if e.wall_s is None:
            console.print(f"estimated wall time {escape(e.judge)}: unknown ({e.note})")
        elif e.load_s is None or e.per_call_s is None:
            console.print(f"estimated wall time {escape(e.judge)}: ≥ {e.wall_s:,.0f} s ({e.note})")
        else:
            console.print(
                f"estimated wall time {escape(e.judge)}: {e.wall_s:,.1f} s (start {e.load_s:.1f} s"
                f" + {e.calls} calls × {e.per_call_s:.3f} s, {e.note}; Staging not counted)"
            )
