"""The Notion tap, a tap that writes into the vault: pages from an export (export.py over
archive.py) or the API (api.py), written into the vault as Markdown notes (pages.py,
markdown.py, links.py) that the vault tap then reads like any other note; report.py is what
an import or a sync tells the user."""
