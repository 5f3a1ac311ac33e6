"""sushicam scorer package."""
