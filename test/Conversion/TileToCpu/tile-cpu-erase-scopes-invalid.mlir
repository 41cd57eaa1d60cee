// RUN: tile-opt %s --tile-cpu-erase-scopes --verify-diagnostics

// Scopes go last: a tile op still present is a pipeline ordering error.
func.func @unlowered(%t: memref<8xf32, #tile.scope<fragment>>) {
  // expected-error @+1 {{'tile.clear' must be lowered before its scopes are erased}}
  tile.clear %t : memref<8xf32, #tile.scope<fragment>>
  return
}
