"""The simulated agent ("brain") behind the offline API (DESIGN §4): ``Brain(scenario)``."""

from .agent import Brain

__all__ = ["Brain"]
