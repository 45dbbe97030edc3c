"""Runs the whole service from one command: an embedded Redis when ``REDIS_URL`` is unset, then
the Procfile's processes (gunicorn and the RQ workers) under supervisord. See ``python -m launcher -h``."""
