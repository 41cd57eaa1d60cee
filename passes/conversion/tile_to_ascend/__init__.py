"""The ascend conversion: tile IR to the `ascend` dialect that tile-sim runs.

One module per step: `place_tiles.py` decides where each tile lives (L1,
L0C or UB, from how it is used), `convert_tile_to_ascend.py` applies the op
lowerings (cube path: `cube_*.py`; vector path: `vector_*.py`), then
`multi_buffer.py`, `plan_memory.py` and `inject_sync.py` give pipelined loops
their slots, every on-chip buffer its offset and the pipes their flags;
`pipelines.py` is the `tile-to-ascend` pipeline. Every module of this folder
is imported here, so each registers its passes and lowerings.
"""

import importlib
import pkgutil

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
