"""How bench talks to services over the network, whatever they serve: endpoints named so two servers never
pass for one, retries, adaptive concurrency, reachability probes, secrets kept out of every message, and a
user's own service behind HTTP."""
