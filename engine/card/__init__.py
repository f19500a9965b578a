"""The SORRY! Card Game, race to 21 (docs/rules.md Part A, after the bilingual card game sheet)."""
