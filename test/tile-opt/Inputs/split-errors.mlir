// Two broken chunks; both are reported.
func.func @f() {
  %x = 
}
// -----
// padding
// padding
func.func @g() -> i32 {
  return
}
