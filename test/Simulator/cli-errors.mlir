// Bad input to tile-sim is an `error:` line and exit code 1, never a traceback.
//
// RUN: not tile-sim %s --arg x=foo 2>&1 | filecheck %s --check-prefix=VALUE
// RUN: not tile-sim %s --arg x=zeros:8xf32 --arg n=1.5x 2>&1 | filecheck %s --check-prefix=NUMBER
// RUN: not tile-sim %s --arg x=zeros:8xf32 --arg n=8 --arg 3 2>&1 | filecheck %s --check-prefix=MANY
// RUN: not tile-sim %s --arg y=zeros:8xf32 2>&1 | filecheck %s --check-prefix=NAME
// RUN: not tile-sim %s --arg x=zeros:8xf32 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not tile-sim %s --arg x=zeros:8xq7 --arg n=8 2>&1 | filecheck %s --check-prefix=TYPE
// RUN: not tile-sim %s --kernel nope 2>&1 | filecheck %s --check-prefix=KERNEL
// RUN: not tile-sim %s --profile 999 2>&1 | filecheck %s --check-prefix=PROFILE
// RUN: not tile-sim %s --arg x=zeros:8xf32 --arg n=8 --block-dim 0 2>&1 | filecheck %s --check-prefix=GRID
// RUN: not tile-sim %S/no-such-file.mlir 2>&1 | filecheck %s --check-prefix=FILE
// RUN: not tile-sim %s --arg x=zeros:4x2xf32 --arg n=8 2>&1 | filecheck %s --check-prefix=RANK
// RUN: echo 'func.func @k(' | not tile-sim - 2>&1 | filecheck %s --check-prefix=PARSE
// RUN: not tile-sim %s --arg x=zeros:8xf32 --arg n=2.5 2>&1 | filecheck %s --check-prefix=FRACTION
// RUN: not tile-sim %s --arg x=zeros:8xf32 --arg n=1e400 2>&1 | filecheck %s --check-prefix=HUGE
// RUN: not tile-sim %s --arg x=zeros:8xf32 --arg n=8 --seed -1 2>&1 | filecheck %s --check-prefix=SEED

func.func @double(%x: memref<?xf32, #ascend.mem<gm>>, %n: index)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  return
}

// VALUE: error: argument %x (memref<?xf32, #ascend.mem<gm>>) needs an array (random/zeros/ones/arange/FILE.npy), not 'foo'
// NUMBER: error: argument %n (index) needs a number, not '1.5x'
// MANY: error: too many --arg values: the kernel has 2 arguments
// NAME: error: no kernel argument named 'y' (arguments: x, n)
// MISSING: error: missing --arg for %n (index)
// TYPE: error: unknown element type 'q7' for argument %x
// KERNEL: error: no kernel named 'nope' (kernels: double)
// PROFILE: error: unknown architecture profile '999' (known: 910b, 950)
// GRID: cli-errors.mlir:19:1: error: block_dim must be at least 1, not 0
// FILE: error: cannot read {{.*}}no-such-file.mlir: [Errno 2] No such file or directory
// RANK: error: argument %x (memref<?xf32, #ascend.mem<gm>>) needs a 1-D array, got shape (4, 2)
// PARSE: <stdin>:1:{{[0-9]+}}: error: expected
// FRACTION: cli-errors.mlir:19:1: error: argument %n (index) needs an integer, not 2.5
// HUGE: error: argument %n (index): 1e400 is out of the range of a 64-bit float
// SEED: error: argument --seed: must be at least 0, not -1
