"""Integer division by a run-time zero in a kernel gives 0 on cpu instead of
killing Python with SIGFPE (`tile-cpu-guard-division`); the other elements
agree with numpy. Each kernel runs in a subprocess, so that a regression
fails this test instead of the whole test run."""

from __future__ import annotations

import subprocess
import sys
import textwrap

DIVIDE = textwrap.dedent(
    """
    import numpy as np

    import tilec
    import tilec.language as T

    N = T.symbolic("N")


    @T.prim_func
    def divide(A: T.Tensor((N,), "int32"), Q: T.Tensor((N,), "int32"),
               R: T.Tensor((N,), "int32"), d: T.int64):
        with T.Kernel(T.ceildiv(N, 16), threads=1) as bx:
            a = T.alloc_fragment((16,), "int32")
            q = T.alloc_fragment((16,), "int32")
            r = T.alloc_fragment((16,), "int32")
            T.copy(A[bx * 16], a)
            for i in T.Parallel(16):
                q[i] = a[i] // T.cast(d, "int32")
                r[i] = a[i] % T.cast(d, "int32")
            T.copy(q, Q[bx * 16])
            T.copy(r, R[bx * 16])


    kernel = tilec.compile(divide)
    low = np.iinfo(np.int32).min
    a = np.concatenate([np.arange(-20, 20, dtype=np.int32), [low, low + 1]]).astype(np.int32)
    for d in (3, -3, 7, -1):
        q, r = np.ones_like(a), np.ones_like(a)
        kernel(a, q, r, d)
        with np.errstate(over="ignore"):
            np.testing.assert_array_equal(q, a // np.int32(d))
        np.testing.assert_array_equal(r, a % np.int32(d))
    q, r = np.ones_like(a), np.ones_like(a)
    kernel(a, q, r, 0)
    np.testing.assert_array_equal(q, 0)
    # % by zero is 0 too, as in numpy (it is not built as a - (a // b) * b, which gave a).
    np.testing.assert_array_equal(r, 0)
    print("ok")
    """
)


def test_division_by_a_run_time_zero_gives_zero_and_does_not_crash(tmp_path):
    script = tmp_path / "divide.py"
    script.write_text(DIVIDE)
    result = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, f"exit code {result.returncode}\n{result.stderr[-3000:]}"
    assert result.stdout.split() == ["ok"]
