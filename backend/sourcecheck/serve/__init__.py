"""Serving: the Flask app, its API blueprints, the waitress server, security and the shared services."""
