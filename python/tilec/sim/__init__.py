"""Simulator of the `ascend` dialect: numerics, races, deadlocks, cycles."""
