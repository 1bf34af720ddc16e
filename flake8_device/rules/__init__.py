"""Rule families, one module each; :mod:`flake8_device.registry` discovers the classes."""
