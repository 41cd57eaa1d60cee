"""The ascend lowerings of tile ops, one module per op family
(cube path `cube_*`, vector path `vector_*`).

A lowering registers itself (`register_lowering`) by being a file here:
`convert-tile-to-ascend` imports every module of this package.
"""
