"""The taps, one sub-package per source (config.SOURCES), none importing another's (only code/
reads through vault/'s safe reader). A tap either writes into the vault (notion/) or reads in
place (code/); vault/ is the vault's own notes, and reads what a writing tap wrote."""
