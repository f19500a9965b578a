"""Examples of the learning loop over :mod:`envs` (docs/gym.md)."""
