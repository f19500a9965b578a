"""The gunicorn application that ``sorry-arena serve`` runs (``cli/serve.py``): configured from a dict, it loads the
service's app in each worker, after the fork, so that no pool of connections is shared between processes."""

from __future__ import annotations

from typing import Any

from flask import Flask
from gunicorn.app.base import BaseApplication

from runtime.settings import Settings


class Server(BaseApplication):  # gunicorn ships no type hints (pyproject: ignore_missing_imports)
    """gunicorn configured from a dict, loading the app in each worker (after the fork: no shared pools)."""

    def __init__(self, settings: Settings, options: dict[str, Any]) -> None:
        self.settings = settings
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Flask:
        from service.app import create_app

        return create_app(self.settings)
