// An operand is missing.
func.func @f() {
  %x = arith.addi : i32
  return
}
