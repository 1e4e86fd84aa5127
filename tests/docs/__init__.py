"""What the documentation promises (README, docs/)."""
