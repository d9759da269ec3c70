"""The TUI's widgets, one per file. Widgets post nested Message classes up to their screen;
screens call down into widgets (``show(...)``) with data the Vault returned."""
