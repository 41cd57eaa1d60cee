"""The rules of the DSL's tile ops, one module per op, as the targets lower
them (passes/conversion/tile_to_*/ops/); the `semantic` package re-exports
the functions the rest of the DSL calls."""
