"""Head dims that are not multiples of 8: zero-pad to the next multiple, slice the output back.

The kernels load 16 bytes (8 bf16/fp16 elements) at a time, so every head dim must be a
multiple of 8.  Zero columns in q and k leave every dot product unchanged, and zero columns
in v only add output columns that are sliced away; the softmax scale stays 1/sqrt(d) of the
*original* d (the caller's scale, or the API computes it before padding).  The copies come from
the caller's framework (torch / cupy / jax), so this path allocates per call: it is the slow
path for unusual head dims, not the common one.
"""

from __future__ import annotations


def needs_padding(d: int, dv: int) -> bool:
    return d % 8 != 0 or dv % 8 != 0


def padded(n: int) -> int:
    return -(-n // 8) * 8


def pad_last(x, to: int):
    """``x`` with its last dim zero-padded to ``to`` (a new array in x's framework)."""
    n = x.shape[-1]
    if n == to:
        return x
    fw = type(x).__module__.split(".", 1)[0]
    if fw == "torch":
        import torch.nn.functional as F

        return F.pad(x, (0, to - n))
    if fw == "cupy":
        import cupy

        return cupy.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, to - n)])
    if fw in ("jax", "jaxlib"):
        import jax.numpy as jnp

        return jnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, to - n)])
    if fw == "numpy":          # the emulator's arrays
        import numpy as np

        return np.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, to - n)])
    raise TypeError(f"head dim {n} is not a multiple of 8 and arrays of type {type(x).__name__} cannot be "
                    "padded here; pass torch, cupy or jax arrays, or pad the head dim to a multiple of 8")


def slice_last(x, n: int):
    return x if x.shape[-1] == n else x[..., :n]


def copy_into(out, value):
    """Write ``value`` into ``out`` in place (torch / cupy)."""
    fw = type(out).__module__.split(".", 1)[0]
    if fw == "torch":
        out.copy_(value)
    elif fw in ("cupy", "numpy"):
        out[...] = value
    else:
        raise TypeError(f"out= of type {type(out).__name__} cannot be written in place; use torch, cupy or numpy arrays")
