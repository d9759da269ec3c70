"""The building blocks of `find`: fzf's fuzzy matcher, typo distance and the path trie. Pure."""
