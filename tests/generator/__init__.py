"""A generator of valid tcgen05 kernels over the feature lattice (issue 33).

Test tooling, not part of the ``tcgen05_lower`` package:

- ``kernelgen``: a kernel's features (``Spec``), the rules of which combinations the
  compiler accepts (``problems``), the MLIR text (``render``), seeded inputs and an
  independent NumPy reference with a tolerance derived from the element types;
- ``check``: compiles a spec, assembles it with ptxas, simulates it under the late and
  eager schedules and compares with the reference; shrinks a failing spec.

``tests/test_generated_kernels.py`` runs a fixed sample; ``benchmarks/generator/run.py``
runs thousands and writes the per-feature-pair report.
"""
