"""The ``sorry-arena`` command line, the top floor: one module per sub-command (``demo``, ``simulate``, ``serve``,
``worker``, ``tournament``, ``db``, ``openapi``), each importing what its job needs."""
