"""sushicam vision package."""
