"""Running one case against one driver: the protocol, the driver, the sandbox, time, substitutions,
and judging what the implementation did against the case's expectations."""
