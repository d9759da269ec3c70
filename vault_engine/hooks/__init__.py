"""Claude Code hooks: answer an event (:mod:`.events`), install them (:mod:`.settings`)."""
