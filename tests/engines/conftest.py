"""One real local Ray cluster shared by all engine tests (Ray takes seconds to start here)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="package")
def ray_cluster() -> Iterator[Any]:
    ray = pytest.importorskip("ray", reason="the 'ray' extra is not installed")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()
