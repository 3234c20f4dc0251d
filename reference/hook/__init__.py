"""The hook side of recall attribution: what an agent's tool-call hook tells us, turned into claim,
evidence and link lines of the recall log. Each rule has one module; ARCHITECTURE.md lists them."""
