"""HTTP edges: thin blueprints that parse, call the core and return dicts (services via get_services())."""
