"""A functional simulator of the PTX the pipeline emits (one CTA or one CTA pair).

``simulate(ptx, manifest, args, schedule)`` runs a kernel on NumPy arrays; the parts:
``ptx`` (parser), ``executor`` and ``ops`` (the machine and its instruction set, whose
handlers live in ``ops_*`` by instruction family),
``tensor_core`` (tcgen05 semantics), ``ordering`` (completion, mbarriers, races),
``state`` (the machine state they share). Nothing here imports the compiler's ISA tables,
lowering or passes: the simulator takes its semantics from the PTX ISA text.
"""


def simulate(*args, **kwargs):
    """See tcgen05_lower.sim.api.simulate."""
    from tcgen05_lower.sim.api import simulate as run
    return run(*args, **kwargs)
