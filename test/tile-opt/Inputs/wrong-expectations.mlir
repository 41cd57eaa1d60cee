// Expectations that do not match what is emitted.
func.func @f(%a: memref<16x16xf32, #tile.scope<shared>>) {
  %c = arith.constant 0 : i32
  // expected-error @+2 {{this message is never produced}}
  tile.fill %a, %c : memref<16x16xf32, #tile.scope<shared>>, i32
  return
}
// -----
func.func @g() {
  // expected-error @+1 {{also never produced}}
  return
}
