"""``pad_input`` / ``unpad_input`` as FlashAttention's tests call them (our own torch code)."""

from __future__ import annotations

import torch


def unpad_input(hidden_states, attention_mask, unused_mask=None):
    """(b, s, ...) and a (b, s) bool mask -> (rows of the kept tokens, their flat indices,
    cu_seqlens int32 (b + 1,), the longest length, the per-sequence lengths)."""
    all_masks = attention_mask if unused_mask is None else attention_mask + unused_mask
    seqlens = all_masks.sum(dim=-1, dtype=torch.int32)
    used = attention_mask.sum(dim=-1, dtype=torch.int32)
    indices = torch.nonzero(all_masks.flatten(), as_tuple=False).flatten()
    cu = torch.nn.functional.pad(torch.cumsum(seqlens, dim=0, dtype=torch.int32), (1, 0))
    flat = hidden_states.reshape(-1, *hidden_states.shape[2:])
    return flat[indices], indices, cu, int(seqlens.max().item()), used


def pad_input(hidden_states, indices, batch, seqlen):
    """Rows at ``indices`` of a zero (batch, seqlen, ...) tensor."""
    out = torch.zeros(batch * seqlen, *hidden_states.shape[1:], device=hidden_states.device,
                      dtype=hidden_states.dtype)
    out[indices] = hidden_states
    return out.reshape(batch, seqlen, *hidden_states.shape[1:])
