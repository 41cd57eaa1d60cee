"""The cuda lowerings of tile ops, one module per op.

A lowering registers itself (`register_lowering`) by being a file here:
`convert-tile-to-cuda` imports every module of this package.
"""
