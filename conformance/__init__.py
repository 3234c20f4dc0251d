"""The conformance harness: a scenario corpus run against any implementation of #884 and #1552."""

__version__ = "0.1.0"
