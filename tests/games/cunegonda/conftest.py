"""Make the shared helpers of the Cunegonda tests importable (this folder has no __init__.py)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
