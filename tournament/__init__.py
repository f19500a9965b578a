"""The tournament workers: RQ jobs (``jobs``), the game runner (``runner``), leases and results (``leases``,
``results``), scheduled and repeated runs (``runs``), pairing (``schedule``) and the stored standings
(``standings``). No Flask: they stand on the data floor (``store``), call bots through ``botlink`` and rate
with ``ratings`` (docs/architecture.md)."""
