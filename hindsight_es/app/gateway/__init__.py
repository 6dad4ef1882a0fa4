"""MCP gateway: a thin MCP server over the kernel, on stdio (``hindsight-es mcp``) and HTTP (``up``)."""
