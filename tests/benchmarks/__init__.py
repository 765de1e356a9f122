"""The benchmarks kept from rotting."""
