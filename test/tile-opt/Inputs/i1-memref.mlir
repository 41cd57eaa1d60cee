// Input of pass-errors.mlir: a memref MemRefToLLVM would abort on.
func.func @f(%x: memref<4xi1>) {
  return
}
