"""Generator of a conda-forge-scale benchmark channel (see ../README.md)."""
