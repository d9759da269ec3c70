"""bench/ is a folder of scripts, not a package: its tests import them by putting it on the path."""

import sys

from tests.conftest import ROOT

BENCH = ROOT / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))
