"""The vault tap: the Markdown notes and attachments of the vault folder itself, read in place."""
