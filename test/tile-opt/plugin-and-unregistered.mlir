// The dialect library is also an mlir-opt plugin, and tile-opt accepts
// unknown dialects only when asked to.
// RUN: mlir-opt --load-dialect-plugin=%tilec_lib --allow-unregistered-dialect %s | filecheck %s
// RUN: not tile-opt %s 2>&1 | filecheck %s --check-prefix=UNREG
// RUN: tile-opt %s --allow-unregistered-dialect | filecheck %s --check-prefix=ALLOWED
// The plugin handles tile IR the way tile-opt does.
// RUN: mlir-opt --load-dialect-plugin=%tilec_lib %S/../../examples/gemm.mlir | filecheck %S/../../examples/gemm.mlir --check-prefix=PLUGIN-GEMM

// CHECK-LABEL: func.func @plugin
// CHECK: tile.kernel blocks(%{{.*}}) in (%{{.*}}) threads = 64
// CHECK: ascend.sync_all
// UNREG: plugin-and-unregistered.mlir:19:12: error: operation being parsed with an unregistered dialect
// ALLOWED: "foo.bar"() : () -> ()
func.func @plugin(%n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 64 {
    tile.barrier
  }
  ascend.sync_all
  "foo.bar"() : () -> ()
  return
}
