"""The image tests' browser: the same Debian Chromium fixture as the end-to-end tests."""

from e2e.conftest import browser  # noqa: F401  (a fixture, used by name)
