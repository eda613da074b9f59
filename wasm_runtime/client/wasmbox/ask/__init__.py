"""`wasmbox ask`: generate → run → observe → revise → explain, from a terminal."""
