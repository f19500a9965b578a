"""The SORRY! Card Game, race to 21 (RULES.md Part A; rule sheets seeds/000 (bilingual), 001 and 003)."""
