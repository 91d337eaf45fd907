"""Seed 004's asyncio experiments: each pattern as a sync function and its async twins."""
