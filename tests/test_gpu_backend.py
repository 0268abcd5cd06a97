"""The CUDA backend (tcgen05_lower.gpu) against a stand-in of the CUDA driver API, since no
Blackwell GPU is available: the stand-in keeps "device memory" as bytes and, at the
launch, reads the kernel parameters through the pointer array the backend built and runs
the PTX in the simulator on that memory. So the launch configuration, the argument
marshalling and the copies in both directions are exercised; the driver API itself and
the hardware are not (the backend is documented as never run)."""

import ctypes
import types

import numpy as np
import pytest

from tcgen05_lower import gpu
from tcgen05_lower.cli.sim import prepare
from tcgen05_lower.sim.api import simulate


class FakeDriver:
    """The calls tcgen05_lower.gpu makes, recording them; status 0 is success."""

    class CUfunction_attribute:
        CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = "max-dynamic-smem"

    class CUlaunchAttributeID:
        CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = "cluster-dimension"

    class CUlaunchConfig(types.SimpleNamespace):
        pass

    class CUlaunchAttribute:
        def __init__(self):
            self.id = None
            self.value = types.SimpleNamespace(clusterDim=types.SimpleNamespace())

    def __init__(self, ptx, manifest):
        self.ptx, self.manifest = ptx, manifest
        self.memory, self.calls, self.freed = {}, [], []

    def _record(self, name, *args):
        self.calls.append((name, args))

    def cuInit(self, flags):
        self._record("cuInit", flags)
        return (0,)

    def cuDeviceGet(self, ordinal):
        return 0, "device0"

    def cuDevicePrimaryCtxRetain(self, device):
        return 0, "context"

    def cuCtxSetCurrent(self, context):
        return (0,)

    def cuModuleLoadData(self, image):
        assert image.endswith(b"\0") and image[:-1].decode() == self.ptx
        return 0, "module"

    def cuModuleGetFunction(self, module, name):
        self._record("cuModuleGetFunction", name)
        return 0, "function"

    def cuFuncSetAttribute(self, function, attribute, value):
        self._record("cuFuncSetAttribute", attribute, value)
        return (0,)

    def cuMemAlloc(self, size):
        handle = 0x10000 * (len(self.memory) + 1)
        self.memory[handle] = bytearray(size)
        return 0, handle

    def cuMemcpyHtoD(self, dst, src, size):
        self.memory[dst][:size] = ctypes.string_at(src, size)
        return (0,)

    def cuMemcpyDtoH(self, dst, src, size):
        ctypes.memmove(dst, bytes(self.memory[src][:size]), size)
        return (0,)

    def cuLaunchKernelEx(self, config, function, params, extra):
        self._record("cuLaunchKernelEx", config)
        pointers = (ctypes.c_void_p * len(self.manifest["params"])).from_address(params)
        args = {}
        for param, pointer in zip(self.manifest["params"], pointers):
            value = ctypes.c_uint64.from_address(pointer).value
            if param["pointer"]:
                args[param["name"]] = np.frombuffer(self.memory[value], np.uint8).copy()
                args[param["name"]].flags.writeable = True
                self.memory[value] = args[param["name"]]
            else:
                args[param["name"]] = value
        # The grid of the launch configuration, not the manifest's.
        result = simulate(self.ptx, self.manifest, args,
                          grid=[config.gridDimX, config.gridDimY, config.gridDimZ])
        assert result.ok, (result.races, result.problems)
        for param in self.manifest["params"]:
            if param["pointer"]:
                handle = next(h for h, m in self.memory.items() if m is args[param["name"]])
                self.memory[handle] = bytearray(result.outputs[param["name"]].tobytes())
        return (0,)

    def cuCtxSynchronize(self):
        return (0,)

    def cuMemFree(self, pointer):
        self.freed.append(pointer)
        return (0,)

    def cuModuleUnload(self, module):
        return (0,)

    def cuDevicePrimaryCtxRelease(self, device):
        return (0,)


@pytest.mark.parametrize("kernel, check", [
    # a scalar K, 48 KiB smem
    ("examples/gemm_bf16_kloop_dynamic.mlir", "examples/gemm_bf16_kloop_dynamic.check.py"),
    ("examples/gemm_bf16_pair_m256.mlir", "examples/gemm_bf16_pair_m256.check.py"),
    # a grid of ceildiv(512, 256) x ceildiv(256, 128) CTAs (the check file's sizes)
    ("examples/gemm_bf16_grid.mlir", "examples/gemm_bf16_grid.check.py"),
])
def test_launch_through_the_driver_api_gives_the_reference(kernel, check):
    ptx, manifest, problem, inputs = prepare(kernel, check, seed=5)
    originals = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    fake = FakeDriver(ptx, manifest)
    ran = gpu.launch(ptx, manifest, inputs, driver=fake)
    for name, want in problem.reference(originals).items():
        ok, *_ = problem.tolerance(name, inputs[name], want, originals)
        assert ok, name
    (config,) = [args[0] for name, args in fake.calls if name == "cuLaunchKernelEx"]
    cluster = manifest["cluster"]
    grid = (2, 2, 1) if "grid" in kernel else tuple(cluster)
    assert (config.gridDimX, config.gridDimY, config.gridDimZ) == grid
    assert (config.blockDimX, config.blockDimY, config.blockDimZ) == (manifest["threads"], 1, 1)
    assert config.sharedMemBytes == manifest["dynamic_smem_bytes"]
    if cluster[0] > 1:   # a CTA pair: the cluster dimension attribute
        (attribute,) = config.attrs
        assert attribute.id == "cluster-dimension" and attribute.value.clusterDim.x == 2
    else:
        assert config.numAttrs == 0
    opted_in = [args for name, args in fake.calls if name == "cuFuncSetAttribute"]
    big = manifest["dynamic_smem_bytes"] > gpu.DEFAULT_DYNAMIC_SMEM
    assert opted_in == ([("max-dynamic-smem", manifest["dynamic_smem_bytes"])] if big else [])
    assert sorted(fake.freed) == sorted(fake.memory)   # every device buffer freed
    assert set(ran["outputs"]) == {p["name"] for p in manifest["params"] if p["pointer"]}


def test_without_the_bindings_the_backend_says_what_to_install(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_cuda(name, *args, **kwargs):
        if name == "cuda" or name.startswith("cuda."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_cuda)
    with pytest.raises(gpu.GpuUnavailable, match=r"pip install 'tcgen05-lower\[cuda\]'"):
        gpu.load_driver()


def test_cli_backend_cuda_without_bindings_is_a_usage_error(tool, monkeypatch):
    def unavailable():
        raise gpu.GpuUnavailable("--backend cuda needs NVIDIA's CUDA driver bindings")

    monkeypatch.setattr(gpu, "load_driver", unavailable)
    proc = tool("tcgen05-sim", "examples/gemm_bf16_128x256.mlir", "--backend", "cuda")
    assert proc.returncode == 1 and "needs NVIDIA's CUDA driver bindings" in proc.stderr
    assert "Traceback" not in proc.stderr
