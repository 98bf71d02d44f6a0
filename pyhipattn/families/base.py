"""What every kernel family sees: the attention Problem, and the Family protocol.

A Problem is a hashable value (shapes, dtypes, strides, features) with no device pointers, so
plans can be computed on a machine without a GPU and cached per problem.  A family module
exposes one gate (``gate``: why it cannot run a problem on an arch, or None) and one planner
(``plan``: the LaunchPlans, pointers left as named slots).  Adding a family touches no other.

Pointer slot names used by every family: ``q``, ``k``, ``v``, ``out``, ``lse``,
``cu_seqlens_q``, ``cu_seqlens_k``, ``workspace`` (base of the per-call scratch; a family
that needs several scratch areas uses ``workspace`` + offsets it computes itself, packed as
separate slots named ``workspace+<offset>``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..plan import LaunchPlan


@dataclass(frozen=True)
class Problem:
    """One attention forward call, minus the addresses.

    Layout is BSHD: q ``(batch, seqlen_q, heads_q, head_dim)``, k ``(batch, seqlen_k, heads_k,
    head_dim)``, v ``(batch, seqlen_k, heads_k, head_dim_v)``, out like q with ``head_dim_v``.
    Varlen problems have ``varlen=True``, ``batch`` = number of sequences, ``seqlen_q`` /
    ``seqlen_k`` = the max lengths, and q/k/v packed as ``(total, heads, dim)`` (their strides
    then have a batch stride of 0).
    Strides are in elements, (batch, seq, head) order; the last dim is contiguous.
    ``window`` is (left, right) with -1 = unbounded; causal is folded into it by the API
    (causal == window right 0, aligned bottom-right) but kept as a flag for gates.
    """

    batch: int
    seqlen_q: int
    seqlen_k: int
    heads_q: int
    heads_k: int
    head_dim: int
    head_dim_v: int
    dtype: str                                  # "bf16" | "fp16"
    softmax_scale: float
    causal: bool = False
    window: tuple[int, int] = (-1, -1)
    softcap: float = 0.0
    return_lse: bool = False
    num_splits: int = 0                         # 0 heuristic, 1 never, >= 2 forced
    varlen: bool = False
    total_q: int = 0                            # varlen only
    total_k: int = 0
    q_strides: tuple[int, int, int] = (0, 0, 0)
    k_strides: tuple[int, int, int] = (0, 0, 0)
    v_strides: tuple[int, int, int] = (0, 0, 0)
    o_strides: tuple[int, int, int] = (0, 0, 0)
    # serving features (mha_fwd_kvcache, sinks, ALiBi): only families with SERVING = True see them
    kv_layout: str = "dense"                    # "dense" | "cache" (b, seqlen_cache, hk, d) | "paged"
    page_size: int = 0                          # paged: tokens per page
    kv_append: int = 0                          # tokens appended into the cache by this call
    cache_seqlens: bool = False                 # per-sequence lengths read on the GPU (seqlen_k = capacity)
    sinks: bool = False                         # one sink logit per query head
    alibi: int = 0                              # 0 off, 1 slopes (hq,), 2 slopes (b, hq)
    block_table_stride: int = 0                 # paged: elements between block-table rows
    new_k_strides: tuple[int, int, int] = (0, 0, 0)   # k_new / v_new (b, n_new, hk, d) when appending
    new_v_strides: tuple[int, int, int] = (0, 0, 0)

    @property
    def group_size(self) -> int:
        return self.heads_q // self.heads_k

    @property
    def serving(self) -> bool:
        """Uses a feature only the serving kernels have (KV caches, sinks, ALiBi)."""
        return self.kv_layout != "dense" or self.cache_seqlens or self.sinks or self.alibi != 0

    @property
    def has_window(self) -> bool:
        return self.window != (-1, -1) and not (self.causal and self.window == (-1, 0))


def gqa_refusal(p: Problem) -> str | None:
    """Why heads_k cannot serve heads_q (GQA / MQA need hq % hk == 0), or None."""
    if p.heads_k <= 0 or p.heads_q % p.heads_k:
        return f"k has {p.heads_k} heads, which does not divide q's {p.heads_q} heads (GQA needs hq % hk == 0)"
    return None


def stride_refusal(p: Problem, why: str) -> str | None:
    """The first of q, k, v, out whose strides are not multiples of 8 elements (``why``: what
    in the family's kernels needs 16-byte pieces), or None."""
    for name, strides in (("q", p.q_strides), ("k", p.k_strides), ("v", p.v_strides), ("out", p.o_strides)):
        if any(x % 8 for x in strides):
            return f"{name} strides {strides} are not multiples of 8 elements ({why})"
    return None


class Family(Protocol):
    """A kernel family module (``pyhipattn.families.<name>``) provides these names."""

    NAME: str
    PRIORITY: int   # higher wins among families whose gate accepts

    def gate(self, problem: Problem, arch: str, compute_units: int | None = None) -> str | None:
        """None when this family can run ``problem`` on ``arch`` (a device with
        ``compute_units`` CUs/SMs, or the arch's reference part when None), else the reason."""
        ...

    def plan(self, problem: Problem, arch: str, compute_units: int, num_splits: int) -> list[LaunchPlan]:
        """The launches, in order, with pointer slots left unbound. ``num_splits`` is decided
        by dispatch (1 = no split)."""
        ...
