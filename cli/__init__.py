"""The command-line client (entry point ``condottiere``) and its HTTP client."""
