"""Example drivers: how little an implementation needs to plug into the harness."""
