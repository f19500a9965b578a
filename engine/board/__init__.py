"""The SORRY! board game (docs/rules.md Part B, after the 1992 sheet and the 1972 French sheet)."""
