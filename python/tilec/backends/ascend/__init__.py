"""The ascend backend: the Ascend-like NPU by profile (910b, 950), run in tilec's simulator."""
