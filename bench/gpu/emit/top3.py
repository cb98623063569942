# tileplan: 13 shape(s) of bench/gpu/emit/shapes.txt, on h200, model calibrated, family triton
# the first 3 configuration(s) of each shape, without repeats: 18 configuration(s) in 2 list(s), one per kernel (types and layouts)
# use a list as @triton.autotune(configs=LIST, key=['M', 'N', 'K']): each shape's first pick is in its list
# per shape, the first pick with its notes (predicted time, warnings, padding): the same command with --format text

# bfloat16 in, bfloat16 out, A row, B col: 10 shape(s), 15 configuration(s)
configs_bfloat16_bfloat16_row_col = [
    triton.Config({'BLOCK_M': 256, 'BLOCK_N': 128, 'BLOCK_K': 64, 'GROUP_M': 8}, num_stages=4, num_warps=8),  # first pick for 1000x4096x4096, 1000x28672x4096, 1000x4096x14336 and 1 more
    triton.Config({'BLOCK_M': 64, 'BLOCK_N': 64, 'BLOCK_K': 128, 'GROUP_M': 8}, num_stages=5, num_warps=4),  # first pick for 16x6144x4096, 16x4096x4096, 16x4096x14336
    triton.Config({'BLOCK_M': 128, 'BLOCK_N': 128, 'BLOCK_K': 64, 'GROUP_M': 8}, num_stages=5, num_warps=4),  # first pick for 1000x6144x4096
    triton.Config({'BLOCK_M': 64, 'BLOCK_N': 256, 'BLOCK_K': 64, 'GROUP_M': 8}, num_stages=5, num_warps=4),  # first pick for 16x28672x4096
    triton.Config({'BLOCK_M': 16, 'BLOCK_N': 256, 'BLOCK_K': 64, 'GROUP_M': 8}, num_stages=4, num_warps=4),  # first pick for 16x128256x4096
    triton.Config({'BLOCK_M': 128, 'BLOCK_N': 128, 'BLOCK_K': 64, 'GROUP_M': 8}, num_stages=3, num_warps=4),  # ranked 2 to 3 for 5 shape(s)
    triton.Config({'BLOCK_M': 128, 'BLOCK_N': 128, 'BLOCK_K': 64, 'GROUP_M': 8}, num_stages=3, num_warps=8),  # ranked 3 for 3 shape(s)
    triton.Config({'BLOCK_M': 16, 'BLOCK_N': 64, 'BLOCK_K': 128, 'GROUP_M': 8}, num_stages=5, num_warps=4),  # ranked 2 for 3 shape(s)
    triton.Config({'BLOCK_M': 16, 'BLOCK_N': 64, 'BLOCK_K': 128, 'GROUP_M': 8}, num_stages=5, num_warps=8),  # ranked 3 for 3 shape(s)
    triton.Config({'BLOCK_M': 128, 'BLOCK_N': 128, 'BLOCK_K': 64, 'GROUP_M': 8}, num_stages=5, num_warps=8),  # ranked 2 for 1 shape(s)
    triton.Config({'BLOCK_M': 256, 'BLOCK_N': 128, 'BLOCK_K': 32, 'GROUP_M': 8}, num_stages=5, num_warps=8),  # ranked 2 for 1 shape(s)
    triton.Config({'BLOCK_M': 16, 'BLOCK_N': 256, 'BLOCK_K': 64, 'GROUP_M': 8}, num_stages=5, num_warps=4),  # ranked 2 for 1 shape(s)
    triton.Config({'BLOCK_M': 16, 'BLOCK_N': 256, 'BLOCK_K': 64, 'GROUP_M': 8}, num_stages=5, num_warps=8),  # ranked 3 for 1 shape(s)
    triton.Config({'BLOCK_M': 16, 'BLOCK_N': 256, 'BLOCK_K': 64, 'GROUP_M': 8}, num_stages=4, num_warps=8),  # ranked 2 for 1 shape(s)
    triton.Config({'BLOCK_M': 16, 'BLOCK_N': 128, 'BLOCK_K': 64, 'GROUP_M': 8}, num_stages=4, num_warps=4),  # ranked 3 for 1 shape(s)
]

# float16 in, float16 out, A row, B row: 3 shape(s), 3 configuration(s)
configs_float16_float16_row_row = [
    triton.Config({'BLOCK_M': 128, 'BLOCK_N': 256, 'BLOCK_K': 64, 'GROUP_M': 8}, num_stages=4, num_warps=8),  # first pick for 2048x12288x4096, 2048x22016x4096, 2048x4096x11008
    triton.Config({'BLOCK_M': 128, 'BLOCK_N': 256, 'BLOCK_K': 32, 'GROUP_M': 8}, num_stages=5, num_warps=8),  # ranked 2 for 3 shape(s)
    triton.Config({'BLOCK_M': 256, 'BLOCK_N': 128, 'BLOCK_K': 64, 'GROUP_M': 8}, num_stages=4, num_warps=8),  # ranked 3 for 3 shape(s)
]
