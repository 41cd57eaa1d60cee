"""DeepEP's `deep_ep.utils`: process setup (`envs`), events and benchmarking."""

from . import envs, event, testing

__all__ = ["envs", "event", "testing"]
