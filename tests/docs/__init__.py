"""What the README and docs/ show runs as shown."""
