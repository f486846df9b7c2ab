"""Thin adapters over the batched engine (no second implementation of the rules)."""
