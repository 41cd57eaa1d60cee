"""`kernel.ir(stage)`: the IR after every pass, printed on first look by
replaying the compile's pipeline (tilec.runtime.stages)."""

import sys
from pathlib import Path

import pytest

import tilec
from tilec.runtime import stages as stages_module

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
import softmax


@pytest.fixture
def replays(monkeypatch):
    """How many times a compile's pass stages were replayed."""
    count = [0]
    original = stages_module.Replay.texts

    def counted(self):
        count[0] += 1
        return original(self)

    monkeypatch.setattr(stages_module.Replay, "texts", counted)
    return count


def test_compiling_and_running_print_no_stage(replays):
    import numpy as np

    kernel = tilec.compile(softmax.softmax(8, 128), target="cpu")
    x = np.random.default_rng(0).standard_normal((8, 128), dtype=np.float32)
    y = np.zeros_like(x)
    kernel(x, y)
    assert np.allclose(y, softmax.reference(x), atol=1e-6)
    assert "tile-guard-accesses" in kernel.stages()
    assert replays[0] == 0


def test_the_replayed_last_pass_is_what_the_backend_compiled(replays):
    """On ascend the final stage is the module the simulator loaded during the
    compile; the replay's last pass stage must be the same text."""
    kernel = tilec.compile(softmax.softmax(37, 300), target="ascend")
    names = kernel.stages()
    assert names[0] == "tile" and names[-1] == "ascend"
    assert names[-2].startswith("tile-ascend-inject-sync")
    assert kernel.ir(names[-2]) == kernel.ir("ascend")
    # Every pass stage comes from one replay, and the IR changes along the way.
    texts = [kernel.ir(name) for name in names[1:-1]]
    assert replays[0] == 1
    assert "tile.kernel" in texts[0] and "tile.kernel" not in texts[-1]
    assert "ascend.set_flag" in texts[-1] and "ascend.set_flag" not in texts[-2]


def test_repeated_elements_get_numbered_names():
    names = stages_module.stage_names("canonicalize,cse,canonicalize,canonicalize")
    assert names == ["canonicalize", "cse", "canonicalize#2", "canonicalize#3"]


def test_unknown_stage_names_the_stages():
    kernel = tilec.compile(softmax.softmax(8, 128), target="cpu")
    with pytest.raises(KeyError, match=r"no stage 'nope'; stages: tile, tile-verify-kernels"):
        kernel.ir("nope")
