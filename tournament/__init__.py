"""sorry-arena's tournament runner (RQ jobs, pairing, bot HTTP calls, ratings): imports engine and service's db."""
