"""Ray's own failures during `paraudit run --engine ray`, as one paraudit line with the command
that resumes (issue 19 item 8).

On a loaded machine Ray may mark its node dead (missed heartbeats), or the raylet or the whole
local cluster may be killed; the driver then sees Ray exceptions (a dead node, dead actors,
lost objects, a raylet gone) from wherever it was waiting. Every finished call is already in
calls.sqlite, so the honest answer is: what happened, that nothing finished is lost, and the
command that asks only the missing calls.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from paraudit.errors import ParauditError
from paraudit.runfolder.names import CALLS

T = TypeVar("T")

# Ray exception class names → what happened, in words.
_WHAT = {
    "NodeDiedError": "a Ray node died (killed, or marked dead after missed heartbeats)",
    "LocalRayletDiedError": "the local raylet died (the Ray node is gone)",
    "RaySystemError": "the Ray cluster failed",
    "ObjectLostError": "Ray lost data it held (its node died)",
    "OwnerDiedError": "Ray lost data it held (its node died)",
    "ObjectFetchTimedOutError": "Ray could not fetch data from a node",
    "ActorDiedError": "Ray workers died",
    "ActorUnavailableError": "Ray workers became unreachable",
    "RayActorError": "Ray workers died",
    "WorkerCrashedError": "a Ray worker crashed",
}


def ray_exception(e: BaseException) -> BaseException | None:
    """The first Ray exception in `e`'s chain (cause and context), if any."""
    seen: set[int] = set()
    cur: BaseException | None = e
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if type(cur).__module__.split(".")[0] == "ray":
            return cur
        cur = cur.__cause__ or cur.__context__
    return None


def ray_failure_line(e: BaseException, out: Path, resume: str) -> str:
    ray_e = ray_exception(e) or e
    name = type(ray_e).__name__
    what = next((w for k, w in _WHAT.items() if k in name), "the Ray cluster failed")
    first = (str(ray_e).strip().splitlines() or [""])[0][:200]
    detail = f"{name}: {first}" if first else name
    return (
        f"{what} ({detail}); every answer finished so far is kept in {out / CALLS}. When the "
        f"cluster is back, resume (only the missing calls are asked): {resume}"
    )


def execute_on_ray(work: Callable[[], T], out: Path, resume: str) -> T:
    """`work()`, with Ray's failures (and paraudit's own lines about Ray's workers) turned
    into one line that ends with the resume command."""
    try:
        return work()
    except ParauditError as e:
        # The Ray Data pass's own line ends in a bare "rerun to resume": the command replaces it.
        text = str(e).removesuffix("Answers stored so far are kept: rerun to resume").rstrip(". ")
        if "Ray" in text and resume not in text:
            raise ParauditError(
                f"{text}; every answer finished so far is kept in {out / CALLS}: resume (only "
                f"the missing calls are asked) with: {resume}"
            ) from None
        raise
    except Exception as e:
        if ray_exception(e) is None:
            raise
        raise ParauditError(ray_failure_line(e, out, resume)) from None
