"""Example bots: each is one ``choose(request) -> action id`` function (copy one to start your own)."""
