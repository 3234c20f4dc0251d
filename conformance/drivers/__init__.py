"""Drivers that plug other implementations into the harness through the driver protocol."""
