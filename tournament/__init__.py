"""The tournament workers, by job: the jobs the service enqueues by dotted name (``jobs``), getting games to
workers (``dispatch``), playing one game (``play``), the stored standings (``standings``) and what is to be played
(``plans``); each folder imports only those below it. No Flask: they stand on the data floor (``store``), call bots
through ``botlink``, rate with ``ratings`` and play through the engine's game loop (docs/architecture.md)."""
