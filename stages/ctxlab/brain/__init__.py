"""The simulated agent ("brain") behind the offline API (DESIGN §4): ``Brain(scenario)``."""

from .agent import Brain
from .serving import client_for, simulator_for

__all__ = ["Brain", "client_for", "simulator_for"]
