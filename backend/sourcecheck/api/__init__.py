"""HTTP edges: thin blueprints that parse, call the core and return dicts."""

from flask import current_app


def get_services():
    return current_app.extensions["sourcecheck"]
