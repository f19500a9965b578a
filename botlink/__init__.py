"""Outbound calls to push bots: the signed, deadline-bound, size-capped call (``botlink.calls``), the request
signature (``botlink.signing``) and the address guard against server-side request forgery (``botlink.netguard``).

The tournament workers call bots through it on every move; the service once, when a bot registers.
"""
