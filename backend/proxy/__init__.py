"""The LLM proxy: request schema, upstream client, limits and the errors they raise."""
