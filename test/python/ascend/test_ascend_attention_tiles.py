"""Flash attention (examples/flash_attention.py) with 128x128 tiles, whose
AIV halves (64x128 f32) fit the UB only because element-wise chains work in
place (vector_parallel's `_dead_operand`, and a select of two scalars made
in its destination) and, on the 910b, the AIVs copy the handed-down scores
from their GM slot straight into the tile the softmax works on
(handoff_rings' `_receive_in_place`). A mask (causal, or of a ragged
sequence's last key tile) is applied to the received scores in place
(`late_masks`), runs only on the key tiles where some key is masked
(`decided_compares.uniform_compares`) and a row at a time there, so it
fits next to them. Each run is checked against numpy, and the simulator
fails it on a race, a deadlock or an unconsumed flag."""

import re

import pytest
from test_ascend_attention import PROFILES, _attention, _check_report

pytestmark = pytest.mark.e2e

_TILES = {"block_M": 128, "block_N": 128, "dtype": "float16", "heads_kv": 1}
_HALF_TILE = r"memref<64x128xf32, #ascend\.mem<ub>>"

@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("causal", [False, True])
def test_128x128_tiles_fit_and_match_numpy(profile, causal):
    # Two query blocks of two key tiles each, the sequence a multiple of the
    # tiles: causal, the second block's first key tile is below the diagonal
    # (no mask) and its second on it (masked a row at a time).
    error, kernel = _attention(profile, 1, 2, 256, 128, causal=causal, **_TILES)
    assert error < 2e-3
    _check_report(kernel)

@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(("block_M", "block_N", "causal"),
                         [(64, 128, True), (128, 64, False), (128, 128, False),
                          (128, 128, True)])
def test_in_place_softmax_on_a_ragged_sequence(profile, block_M, block_N, causal):
    # 200 rows: the last query block and key tile are partial, and the
    # causal loop runs 1 to 4 trips; the masked scores go through the
    # in-place chains and the select of the scores and -inf in place.
    tiles = {**_TILES, "block_M": block_M, "block_N": block_N}
    error, kernel = _attention(profile, 1, 2, 200, 128, causal=causal, **tiles)
    assert error < 2e-3
    _check_report(kernel)

@pytest.mark.parametrize("profile", PROFILES)
def test_the_causal_mask_runs_on_the_diagonal_key_tile_only(profile):
    """The mask's region sits in the else-branch of a test of its compare at
    the tile's corners, a row at a time (no 64x128 index tile)."""
    error, kernel = _attention(profile, 1, 1, 384, 128, causal=True, **_TILES)
    assert error < 2e-3
    text = kernel.ir(kernel.stages()[-1])
    aiv = text[text.index("ascend.core aiv"):]
    assert not re.search(r"memref<64x128xi(32|1)\b", aiv)
    masks = re.findall(r"ascend\.vcmp ge %\S+, %\S+, %\S+ : memref<1x128xi1", aiv)
    assert masks
    # Below the diagonal: nothing but the sync the branch needs.
    assert re.search(r"arith\.cmpi sge[^\n]*\n\s*scf\.if %\S+ \{\n(\s*ascend\.wait_flag[^\n]*\n)*"
                     r"\s*\} else \{", aiv)

def test_the_910b_aivs_receive_the_scores_into_their_working_tile():
    """No UB -> UB copy of a half tile: the DMA out of the GM slot writes the
    tile the max, the exp and the sum read."""
    error, kernel = _attention("910b", 1, 1, 256, 128, causal=False, **_TILES)
    assert error < 2e-3
    text = kernel.ir(kernel.stages()[-1])
    aiv = text[text.index("ascend.core aiv"):]
    copies = re.findall(rf"ascend\.copy [^\n]*: {_HALF_TILE}, {_HALF_TILE}", aiv)
    assert copies == []
    received = re.findall(rf"ascend\.copy %arg\d+\[[^\n]*: memref<\?x128xf32, "
                          rf"#ascend\.mem<gm>>, {_HALF_TILE}", aiv)
    assert received  # S and P V, out of their slots
