"""sushicam web package."""
