"""The relevance benchmark: known-item questions run through the reference and teamai-cli 0.25.0
on real team trees, scored per slice, and the differential recall report between the two."""
