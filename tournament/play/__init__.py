"""Playing one scheduled game: its runner (``runner``), the game as the game loop sees it (``game``), its seats
(``seats``), its lease and heartbeat (``leases``, ``heartbeat``), the bots that stall (``stalls``), the scheduled
game read (``scheduled``), its result written (``results``), and one SQLite writer at a time (``writes``)."""
