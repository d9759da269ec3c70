"""Text rules every layer shares, in a module that imports nothing else (the CLI's shell
needs them before anything is loaded)."""

import re

# C0 controls but tab and newline, DEL, and the C1 controls (U+009B alone starts an escape
# sequence): not text. A note must not hold them; a terminal must not be handed them.
CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
