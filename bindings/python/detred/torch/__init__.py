# SPDX-License-Identifier: BSD-3-Clause
"""detred for PyTorch. detred.torch.distributed: deterministic all-reduce and a DDP communication hook."""
