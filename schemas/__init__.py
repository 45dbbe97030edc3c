"""Marshmallow schemas for the HTTP API (requests, responses, problems)."""
