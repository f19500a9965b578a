"""The ``sorry-arena`` command line, the top floor: the entry point (``cli/main.py``, which lists the sub-commands),
each sub-command's parser (``cli/parsers/``, light enough for ``--help`` and usage errors to start at once) and the
module that does its work (``cli/<command>.py``), importing what its job needs, with their helpers (the options and
argument types they share, the database checks, the bots, games and replay files of ``simulate`` and ``match``)."""
