"""The ``sorry-arena`` command line: one sub-command per job (``simulate`` now; ``serve``, ``worker`` and
``tournament`` arrive with the service and tournament packages)."""
