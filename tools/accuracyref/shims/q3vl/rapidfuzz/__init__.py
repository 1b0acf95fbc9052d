"""Stand-in for rapidfuzz: fuzz.ratio only."""
