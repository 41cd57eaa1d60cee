"""Conversions of the `tile` dialect, one folder per target (`tile_to_cpu/`, ...).

`lowering.py` is the contract every tile op lowering implements (with the
phase it runs in) and the registry that picks one per op and target;
`tile_conversion.py` the driver every `convert-tile-to-<target>` pass runs;
`kernel_lowering.py` what the targets' tile.kernel lowerings share;
`ir_builders.py` the IR helpers they share. A target's folder holds its op
lowerings (`ops/`), its `convert-tile-to-<target>` pass, the transforms only
it needs (`tile-<target>-<verb>-<object>`) and its `tile-to-<target>` pipeline.
"""
