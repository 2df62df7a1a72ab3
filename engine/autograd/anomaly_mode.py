"""`torch.autograd.anomaly_mode`: anomaly detection, a mode of `engine.state` (each op's forward stack is
recorded, and a backward whose rule returns nan stops, naming the op)."""
from __future__ import annotations

import warnings

from engine import state

__all__ = ["detect_anomaly", "set_detect_anomaly"]


class set_detect_anomaly:  # noqa: N801 - PyTorch's spelling
    """`torch.autograd.set_detect_anomaly(mode, check_nan=True)`: record each op's forward stack, and stop a
    backward whose rule returns nan, naming the op (also usable as a context manager)."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = state.update(anomaly=bool(mode), check_nan=bool(check_nan))

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        state.restore(self.prev, "anomaly", "check_nan")


class detect_anomaly:  # noqa: N801
    """`with torch.autograd.detect_anomaly():` — anomaly detection inside the block only."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self):
        self.prev = state.update(anomaly=True, check_nan=self.check_nan)
        return self

    def __exit__(self, *exc) -> None:
        state.restore(self.prev, "anomaly", "check_nan")
