"""Benchmarks behind `npc-ai bench`: `sync` (coupling modes on seeded routes), `sim` (NPC-ticks per second).

Import the modules directly (`npc_ai.bench.sync`, `npc_ai.bench.sim`); this package imports nothing heavy.
"""
