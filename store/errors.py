"""Errors of the store; messages are safe to show to the user.

Each carries the English message and, where the app translates it, a ``code`` with ``values``
(:class:`costmodel.errors.CodedError`): the page's language comes from the code, not the text.
"""

from __future__ import annotations

from costmodel.errors import CodedError


class StoreError(CodedError):
    """Base class of the store's errors."""


class NotFound(StoreError):  # noqa: N818 - reads as "raise NotFound"
    """No such item for this owner (also when it exists but belongs to someone else)."""


class AccessDenied(StoreError):  # noqa: N818
    """The session may not do this (a public customer session, or a throttled login)."""


class Conflict(StoreError):  # noqa: N818
    """The item changed since it was read (another save came first); nothing was written."""


class ImportRejected(StoreError):  # noqa: N818
    """An imported file was refused; the message names the field and the allowed range."""
