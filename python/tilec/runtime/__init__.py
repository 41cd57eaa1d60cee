"""Compiling and running tile kernels, for any target.

`compiler` (`tilec.compile`) resolves the target's backend
(`tilec.backends`), lowers a kernel through its pipeline stage by stage and
loads the result through its driver; `jit` (`tilec.jit`) specializes a
kernel on the shapes it is called with and keeps the results in memory and
on disk (`cache`). The parameter model and argument checks (`signature`)
are shared by every target and its backend, which is why this package
imports none of its modules itself: backends build on `signature`, and
`compiler` builds on the backends.
"""
