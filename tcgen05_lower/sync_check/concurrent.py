"""The entry of the concurrent model: a kernel with roles or hand-written arrivals is
checked on one CTA (roles.Concurrent) or, with cta_group::2, on both CTAs of the pair
(pairs.PairConcurrent)."""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.sync_check.pairs import check_pair_roles
from tcgen05_lower.sync_check.role_trace import RoleTracer
from tcgen05_lower.sync_check.roles import Concurrent
from tcgen05_lower.sync_check.runtime_bounds import check_each_count


def check_roles(pass_, kernel) -> tuple:
    """(problems [(op, message)], steps, pairs checked, long loops shortened) of a kernel
    with partitions or hand-written arrivals; raises Unsupported. A cta_group::2 kernel
    runs each program once per CTA of the pair (pairs.py)."""
    if d.kernel_info(kernel).cta_group == 2:
        return check_pair_roles(pass_, kernel)

    def run_once(trips):  # one count of the run-time loop bounds (runtime_bounds.py)
        tracer = RoleTracer(pass_, kernel)
        tracer.runtime_trips = trips
        tracer.trace()
        concurrent = Concurrent(tracer)
        concurrent.run()
        return tracer, list(concurrent.problems.values()), concurrent.steps, \
            concurrent.checked

    return check_each_count(run_once, kernel)
