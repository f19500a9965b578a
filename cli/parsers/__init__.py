"""The parsers of the ``sorry-arena`` sub-commands, one module each, named for its command: its options, their
types and help, and the usage errors argparse finds. ``cli/main.py`` builds ``sorry-arena --help`` from all of them
and a command's own parser from its module alone, then imports the module that does the command's work
(``cli/<command>.py``) only when the command runs.

So that ``--help`` and every usage error start at once, these modules import no library of the service or the
workers (Flask, SQLAlchemy, Alembic, RQ, Redis, gunicorn...) and none of the modules that do the work, not even
inside a function: the contract of the command line's parsers in pyproject.toml holds them to it.
"""
