"""The sandbox: the offline runtime builder, the worker and SDK sources, the in-sandbox kernel."""
