// tilec stand-in: the emitted kernels take no tiling structs.
#pragma once
