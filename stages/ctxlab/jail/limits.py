"""What one jailed command may use, set with setrlimit in the jailed child (DESIGN §9).

``prlimit`` (util-linux) applies them inside the jail, after bubblewrap has made the user
namespace and right before the command's program starts: the process count must be set there,
because a fresh user namespace counts only its own processes. Address space, file size and CPU
time bind every process of the command; a process started by the command inherits them.
"""

from __future__ import annotations

from dataclasses import dataclass

MIB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Each ``None`` leaves that resource at what the parent had."""

    address_space: int | None  # bytes (RLIMIT_AS)
    file_size: int | None  # bytes (RLIMIT_FSIZE)
    cpu_seconds: int | None  # RLIMIT_CPU
    processes: int | None  # RLIMIT_NPROC, as the unprivileged uid inside the jail

    def __post_init__(self) -> None:
        for name, value in self.__dict__.items():
            if value is not None and value <= 0:
                raise ValueError(f"Limits.{name} must be positive or None, not {value!r}")


COMMAND_LIMITS = Limits(address_space=1024 * MIB, file_size=256 * MIB, cpu_seconds=None,
                        processes=64)
"""An agent command's limits: 1 GiB of address space, 256 MiB per written file, 64 processes;
its CPU time follows its wall-clock time limit (``for_timeout``)."""


def for_timeout(limits: Limits, timeout: float) -> Limits:
    """``limits`` with the CPU time capped at the wall-clock ``timeout`` (rounded up)."""
    cpu = max(1, int(-(-timeout // 1)))
    if limits.cpu_seconds is not None:
        cpu = min(cpu, limits.cpu_seconds)
    return Limits(limits.address_space, limits.file_size, cpu, limits.processes)


def prlimit_args(limits: Limits) -> list[str]:
    """``prlimit``'s options for ``limits`` (soft and hard the same: the command cannot raise
    them)."""
    pairs = (("--as", limits.address_space), ("--fsize", limits.file_size),
             ("--cpu", limits.cpu_seconds), ("--nproc", limits.processes))
    return [f"{option}={value}:{value}" for option, value in pairs if value is not None]
