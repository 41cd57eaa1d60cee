// Bad input of every kind: one `error:` line, exit code 1, no traceback.
// RUN: not tile-opt %t.does-not-exist 2>&1 | filecheck %s --check-prefix=MISSING
// MISSING: error: cannot open input file '{{.*}}does-not-exist': No such file or directory

// RUN: not tile-opt --no-such-flag %s 2>&1 | filecheck %s --check-prefix=FLAG
// FLAG: tile-opt: error: unknown option '--no-such-flag'

// RUN: not tile-opt --pass-pipeline='builtin.module(no-such-pass)' %s 2>&1 | filecheck %s --check-prefix=PASS
// PASS: error: 'no-such-pass' does not refer to a registered pass or pass pipeline

// RUN: not tile-opt --tile-verify-kernels=target=tpu %s 2>&1 | filecheck %s --check-prefix=OPTVAL
// OPTVAL: error: invalid value 'tpu' for option 'target' of pass 'tile-verify-kernels': unknown target 'tpu'; targets: ascend, cpu, cuda

// RUN: not tile-opt --tile-verify-kernels=colour=red %s 2>&1 | filecheck %s --check-prefix=OPTNAME
// OPTNAME: error: pass 'tile-verify-kernels' has no option 'colour' (options: target)

// RUN: not tile-opt --pass-pipeline='builtin.module(canonicalize' %s 2>&1 | filecheck %s --check-prefix=SYNTAX
// SYNTAX: error: invalid pass pipeline 'builtin.module(canonicalize': expected ')'

// RUN: not tile-opt --pass-pipeline=canonicalize --cse %s 2>&1 | filecheck %s --check-prefix=BOTH
// BOTH: error: --pass-pipeline cannot be combined with individual pass flags

// RUN: not tile-opt --canonicalize='bogus-option=1' %s 2>&1 | filecheck %s --check-prefix=UPOPT
// UPOPT: {{^}}error: pass 'canonicalize' has no option 'bogus-option'

// RUN: not tile-opt --canonicalize=max-iterations=abc %s 2>&1 | filecheck %s --check-prefix=UPVAL
// UPVAL: {{^}}error: invalid value for option 'max-iterations' of pass 'canonicalize': 'abc' value invalid for long argument
// UPVAL-NOT: error

// The inliner parses its default pipeline only when it runs, and goes on without it.
// RUN: not tile-opt --inline=default-pipeline=bogus %s 2>&1 | filecheck %s --check-prefix=INLINE
// INLINE: {{^}}error: invalid value for option 'default-pipeline' of pass 'inline': 'bogus' does not refer to a registered pass or pass pipeline
// RUN: tile-opt '--inline=default-pipeline={canonicalize,cse}' %s | filecheck %s --check-prefix=INLINE-OK
// INLINE-OK: func.func @ok

// RUN: not tile-opt %S/Inputs/parse-error.mlir 2>&1 | filecheck %s --check-prefix=PARSE
// PARSE: parse-error.mlir:3:18: error: expected SSA operand
// PARSE-NEXT: {{^}}  %x = arith.addi : i32
// PARSE-NEXT: {{^}}                 ^

// RUN: not tile-opt %S/Inputs/verifier-error.mlir 2>&1 | filecheck %s --check-prefix=VERIFY
// VERIFY: verifier-error.mlir:4:3: error: 'tile.fill' op expected value of type 'f32' (the dst element type) but got 'i32'

// RUN: printf '\x00\xff\xfe binary' > %t.bin
// RUN: not tile-opt %t.bin 2>&1 | filecheck %s --check-prefix=BINARY
// BINARY: error: {{.*}}.bin: input is not UTF-8 text (invalid byte at offset 1)

// RUN: not tile-opt %s %s 2>&1 | filecheck %s --check-prefix=TWO
// TWO: error: expected one input file but got 2

func.func @ok() {
  return
}
