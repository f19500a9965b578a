"""The reference bot client: imports nothing of sorry-arena's, so that a bot author can copy it away."""
