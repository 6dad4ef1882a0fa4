"""The app layer: entry points (CLI, MCP and HTTP gateway, benchmarks). Imports everything; nothing imports it."""
