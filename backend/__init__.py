"""The wasmbox backend: static serving and an LLM proxy. It never runs generated code."""
