"""The vault tap: the Markdown notes and attachments of the vault folder itself (those a tap that
writes into the vault put there too), found by its scan and read safely (files.py); what
changed on disk since the ledger's record (changes.py), which the code tap asks too; why a
file or folder is skipped (skip_reasons.py), in words the code tap's scan shares."""
