"""flake8-device: find (and fix) PyTorch device-placement bugs before a job is launched."""

__version__ = "0.1.0"
