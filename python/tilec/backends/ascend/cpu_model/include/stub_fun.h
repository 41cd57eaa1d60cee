// tilec stand-in for the CANN toolkit CPU-debug header of this name: everything it
// provides is in stub_def.h.
#include "stub_def.h"
