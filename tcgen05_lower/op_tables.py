"""Tables keyed by operations. MLIR 22.1's Python ``Operation.__hash__`` changes when an
attribute of the op is written, so a plain dict loses an op whose attributes a pass
writes, and a dict keyed by ops is quadratic in their number; these key ops by their C
pointers (``bindings.op_pointer``).
"""

from __future__ import annotations

from tcgen05_lower.bindings import ir, op_pointer


class OpMap:
    """A dict keyed by operations that survives attribute changes: MLIR 22.1's Python
    ``Operation.__hash__`` changes when an attribute of the op is written, so a plain dict
    loses an op whose attributes a pass writes after inserting it. Keys are the ops' C
    pointers (``bindings.op_pointer``)."""

    __slots__ = ("_items",)

    def __init__(self):
        self._items: dict[int, tuple] = {}

    def __setitem__(self, op, value) -> None:
        self._items[op_pointer(op)] = (op, value)

    def get(self, op, default=None):
        found = self._items.get(op_pointer(op))
        return default if found is None else found[1]

    def __contains__(self, op) -> bool:
        return op_pointer(op) in self._items

    def __len__(self) -> int:
        return len(self._items)

    def values(self):
        return [value for _, value in self._items.values()]



def op_key(key):
    """What an OpDict files `key` under: an op's C pointer; a tuple key element by
    element; any other key (values, blocks, strings: hashed by identity or contents
    already) as it is."""
    if type(key) is tuple:
        return tuple(op_key(k) for k in key)
    if isinstance(key, (ir.Operation, ir.OpView)):
        return op_pointer(key)
    return key


class OpDict:
    """A dict whose keys are ops (or tuples holding ops), keyed as OpMap keys them. Besides
    surviving attribute changes, this keeps lookups constant-time: the bindings' hash of
    an op depends on what is written on it, so equal-looking ops (the smem_fills of one
    tile in every tile of a kernel) share it and a plain dict keyed by them probes
    through all of them, quadratic in kernel size."""

    __slots__ = ("_items",)

    def __init__(self, pairs=()):
        self._items: dict = {}
        for key, value in pairs:
            self[key] = value

    def __setitem__(self, key, value) -> None:
        self._items[op_key(key)] = (key, value)

    def __getitem__(self, key):
        return self._items[op_key(key)][1]

    def __delitem__(self, key) -> None:
        del self._items[op_key(key)]

    def __contains__(self, key) -> bool:
        return op_key(key) in self._items

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self):
        return (key for key, _ in list(self._items.values()))

    def get(self, key, default=None):
        found = self._items.get(op_key(key))
        return default if found is None else found[1]

    def setdefault(self, key, default=None):
        return self._items.setdefault(op_key(key), (key, default))[1]

    def pop(self, key, *default):
        found = self._items.pop(op_key(key), None)
        if found is None:
            if default:
                return default[0]
            raise KeyError(key)
        return found[1]

    def keys(self) -> list:
        return [key for key, _ in self._items.values()]

    def values(self) -> list:
        return [value for _, value in self._items.values()]

    def items(self) -> list:
        return list(self._items.values())
