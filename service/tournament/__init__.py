"""Tournaments for tables of two to six players: the pure core (no Redis, no clock) in
:mod:`service.tournament.tables` (how many tables of which sizes), :mod:`service.tournament.swiss`
(who sits with whom, in which seat), :mod:`service.tournament.scoring` (placement points, standings,
tie-breaks, duplicate comparisons) and :mod:`service.tournament.elimination`."""
