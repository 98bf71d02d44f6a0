"""Rotary embeddings: not part of pyhipattn; a test that needs them is skipped."""

import pytest


def apply_rotary_emb(*args, **kwargs):
    pytest.skip("pyhipattn: rotary embeddings are not supported")
