"""Answers about indexed code: symbol lookup, why links, bounded call-graph walks."""
