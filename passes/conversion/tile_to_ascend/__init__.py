"""The ascend conversion: tile IR to the `ascend` dialect that tile-sim runs.

Passes at the top, one per file: `place_tiles.py` decides where each tile lives
(L1, L0C or UB, from how it is used), `convert_tile_to_ascend.py` applies the op
lowerings of `ops/` (cube path: `cube_*.py`; vector path: `vector_*.py`), then
`multi_buffer.py`, `plan_memory.py` and `inject_sync.py` give pipelined loops
their slots, every on-chip buffer its offset and the pipes their flags;
`pipelines.py` is the `tile-to-ascend` pipeline. `analysis/` holds what the
passes compute about a kernel (the sync model, the cores' sides, the hand-off
rings). Every module is imported here, so each registers its passes.
"""

from tilec.passes.registry import import_package

import_package(__name__)
