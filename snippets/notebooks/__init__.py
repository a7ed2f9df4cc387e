"""The notebooks' code cells, one marked section per cell (docs/en/notebooks/, docs/ko/notebooks/)."""
