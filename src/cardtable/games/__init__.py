"""The game engines: pure rules, standard library only."""
