"""The cuda backend: NVIDIA GPUs by arch (sm_80, sm_86, sm_89, sm_90a)."""
