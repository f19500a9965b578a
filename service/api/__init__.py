"""The API's blueprints, one per resource, mounted under ``/api/v1``."""
