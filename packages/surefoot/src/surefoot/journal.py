"""The journal: each conversation's transcript, the lease that gives one process at a time the
right to extend it, the model a conversation was started with, and its approvals."""

from ._journal import Approval, Journal, Lease, MemoryJournal, ModelRef

__all__ = ["Approval", "Journal", "Lease", "MemoryJournal", "ModelRef"]
