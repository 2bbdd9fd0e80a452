# SPDX-License-Identifier: BSD-3-Clause
"""``python -m detred``: the library, canonical order and partial-state format versions, as ``detred --version``."""

import detred

print(f"detred {detred.__version__}, order version {detred.order_version}, "
      f"state format version {detred.state_format_version}")
