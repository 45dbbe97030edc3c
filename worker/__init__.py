"""The worker processes: ``python -m worker`` (the RQ worker: archive jobs and bot turns), the
janitor (``worker.janitor``) and the clock enforcer (``worker.clocks``). Jobs are thin wrappers over
``service/``; importing this package connects nothing (each entry point wires its process)."""
