"""The tcgen05 passes, by pass argument.

Each pass lives in the module named like its argument (``tcgen05-plan-tmem`` ->
``tcgen05_plan_tmem.py``) and has a lit test folder of the same name under ``lit_tests/``.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

from tcgen05_lower.pass_infra import ModulePass
from tcgen05_lower.passes.tcgen05_insert_sync import Tcgen05InsertSync
from tcgen05_lower.passes.tcgen05_verify_sync import Tcgen05VerifySync
from tcgen05_lower.passes.tcgen05_lower_to_llvm import Tcgen05FinalizeKernels, Tcgen05LowerToLlvm
from tcgen05_lower.passes.tcgen05_plan_tmem import Tcgen05PlanTmem
from tcgen05_lower.passes.tcgen05_select_layouts import Tcgen05SelectLayouts
from tcgen05_lower.passes.tcgen05_verify import Tcgen05Verify

#: Pass argument -> pass class, in pipeline order.
REGISTRY: Mapping[str, type[ModulePass]] = MappingProxyType({
    cls.name: cls for cls in (
        Tcgen05Verify,
        Tcgen05SelectLayouts,
        Tcgen05PlanTmem,
        Tcgen05InsertSync,
        Tcgen05VerifySync,
        Tcgen05LowerToLlvm,
        Tcgen05FinalizeKernels,
    )
})
