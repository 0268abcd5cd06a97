"""Launching a compiled kernel on a Blackwell GPU through NVIDIA's CUDA driver API.

``tcgen05-sim KERNEL --backend cuda`` (also installed as ``tcgen05-run``) feeds a GPU the
inputs the simulator gets and checks the outputs with the same reference, so one command
compares the hardware with the model. It needs the optional ``cuda`` extra
(``pip install 'tcgen05-lower[cuda]'``: NVIDIA's ``cuda-python`` driver bindings) and a GPU
of the kernel's target. NOT RUN: no Blackwell GPU was available where this was written,
so this backend has never launched a kernel; its launch configuration and argument
marshalling are tested against a recording stand-in of the driver API
(tests/test_gpu_backend.py), nothing more.

The launch follows the manifest (``tcgen05-lower --manifest``): the manifest's grid
(computed from the integer arguments; one cluster without one) in clusters of
``cluster`` CTAs of ``threads`` threads, ``dynamic_smem_bytes`` of dynamic shared memory
(raised above the 48 KiB default with ``CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES``),
a pointer parameter per array argument (device copies made before and read back after
the launch), and 64-bit scalars (the manifest's ``.u64`` parameters) by value.
"""

from __future__ import annotations

import ctypes
import time

import numpy as np

from tcgen05_lower.launch import evaluate

#: The 48 KiB a kernel gets without opting in to more dynamic shared memory.
DEFAULT_DYNAMIC_SMEM = 48 * 1024


class GpuUnavailable(RuntimeError):
    """No CUDA driver bindings, no device, or a driver call that failed."""


def load_driver():
    """``cuda.bindings.driver`` (cuda-python 12.6 and later), or ``cuda.cuda`` (older)."""
    try:
        from cuda.bindings import driver
        return driver
    except ImportError:
        pass
    try:
        from cuda import cuda as driver
        return driver
    except ImportError:
        raise GpuUnavailable(
            "--backend cuda needs NVIDIA's CUDA driver bindings: pip install "
            "'tcgen05-lower[cuda]' (cuda-python), and a GPU of the kernel's target") from None


class _Driver:
    """Calls of the driver API that raise on an error code."""

    def __init__(self, driver):
        self.api = driver

    def __call__(self, name: str, *args):
        result = getattr(self.api, name)(*args)
        status, values = (result[0], result[1:]) if isinstance(result, tuple) else (result, ())
        if int(status) != 0:
            raise GpuUnavailable(f"{name} failed: {status}")
        return values[0] if len(values) == 1 else values


def launch(ptx: str, manifest: dict, args: dict, *, driver=None) -> dict:
    """Runs the manifest's entry once on device 0 with ``args`` ({parameter name: NumPy
    array or int}); returns {name: array after the run} for the array arguments (the
    arrays passed in are updated too) and ``seconds``, the launch-to-synchronize time."""
    maps = [p["name"] for p in manifest["params"] if "tensor_map" in p]
    if maps:
        # The CUtensorMap would come from cuTensorMapEncodeTiled with the arguments
        # docs/tma.md lists, copied to a 64-byte aligned device buffer; not done yet.
        raise GpuUnavailable(f"the CUDA backend does not encode tensor maps yet (parameters "
                             f"{', '.join(maps)}); docs/tma.md shows the host side")
    cu = _Driver(driver if driver is not None else load_driver())
    api = cu.api
    cu("cuInit", 0)
    device = cu("cuDeviceGet", 0)
    context = cu("cuDevicePrimaryCtxRetain", device)
    cu("cuCtxSetCurrent", context)
    module = cu("cuModuleLoadData", ptx.encode() + b"\0")
    function = cu("cuModuleGetFunction", module, manifest["entry"].encode())
    smem = int(manifest.get("dynamic_smem_bytes", 0))
    if smem > DEFAULT_DYNAMIC_SMEM:
        cu("cuFuncSetAttribute", function,
           api.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem)
    device_buffers, values = {}, []
    try:
        for param in manifest["params"]:
            value = args[param["name"]]
            if param["pointer"]:
                array = np.ascontiguousarray(value)
                pointer = cu("cuMemAlloc", max(array.nbytes, 1))
                cu("cuMemcpyHtoD", pointer, array.ctypes.data, array.nbytes)
                device_buffers[param["name"]] = (pointer, array)
                values.append(ctypes.c_uint64(int(pointer)))
            else:
                values.append(ctypes.c_uint64(int(value)))
        pointers = (ctypes.c_void_p * len(values))(
            *[ctypes.cast(ctypes.pointer(v), ctypes.c_void_p) for v in values])
        config = api.CUlaunchConfig()
        cluster = list(manifest.get("cluster", [1, 1, 1])) + [1, 1]
        grid = evaluate(manifest.get("grid") or [str(cluster[0])],
                        {p["name"]: args[p["name"]] for p in manifest["params"]
                         if not p["pointer"]})
        config.gridDimX, config.gridDimY, config.gridDimZ = grid
        config.blockDimX, config.blockDimY, config.blockDimZ = int(manifest["threads"]), 1, 1
        config.sharedMemBytes = smem
        config.hStream = 0
        attributes = []
        if cluster[0] * cluster[1] * cluster[2] > 1:
            attribute = api.CUlaunchAttribute()
            attribute.id = api.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
            attribute.value.clusterDim.x = cluster[0]
            attribute.value.clusterDim.y = cluster[1]
            attribute.value.clusterDim.z = cluster[2]
            attributes.append(attribute)
        config.attrs = attributes
        config.numAttrs = len(attributes)
        start = time.perf_counter()
        cu("cuLaunchKernelEx", config, function, ctypes.addressof(pointers), 0)
        cu("cuCtxSynchronize")
        seconds = time.perf_counter() - start
        outputs = {}
        for name, (pointer, array) in device_buffers.items():
            cu("cuMemcpyDtoH", array.ctypes.data, pointer, array.nbytes)
            if isinstance(args[name], np.ndarray) and args[name] is not array:
                args[name][...] = array
            outputs[name] = array
        return {"outputs": outputs, "seconds": seconds}
    finally:
        for pointer, _ in device_buffers.values():
            api.cuMemFree(pointer)
        api.cuModuleUnload(module)
        api.cuDevicePrimaryCtxRelease(device)
