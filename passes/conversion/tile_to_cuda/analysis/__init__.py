"""The tile layouts and gemm plans the cuda lowerings and passes share — no pass and no
lowering here."""
