"""The TUI's screens: Search, Note viewer, Dead ends, Resume, Decay."""
