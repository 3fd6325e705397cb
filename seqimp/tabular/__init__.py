"""Feature importance for real-valued and categorical (tabular) inputs."""
