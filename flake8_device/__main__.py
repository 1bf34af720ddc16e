import sys

from flake8_device.cli import main

if __name__ == "__main__":
    sys.exit(main())
