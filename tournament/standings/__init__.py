"""The stored standings: a tournament's and a rating pool's fitted tables (``tables``), a pool's running state kept
with each result (``poolstate``), and a pool's refit off the game path (``poolfit``)."""
