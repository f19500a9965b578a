"""The SORRY! board game (RULES.md Part B; rule sheets seeds/002 (1992) and seeds/004 (1972))."""
