"""Every durable room of these tests is checked for a change its recorder could miss."""

from tests.recorder_check import recorder_misses_no_change  # noqa: F401 - autouse
