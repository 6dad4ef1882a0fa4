"""One adapter per system under test, each run inside its own server process (``benchmarks.peers.server``)."""
