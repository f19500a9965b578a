"""Rating arithmetic, pure (the standard library, and numpy and scipy for the fit's arrays): incremental Elo
(``ratings.elo``), the order-independent Bradley-Terry fit with intervals (``ratings.fit``, its games read as arrays
by ``ratings.seats``), a tournament's table and head-to-head (``ratings.summary``) and a pool's standings with each
bot's rating over time (``ratings.history``), and the sequential test of a match on paired games
(``ratings.sprt``). The workers store what it computes; the web pages draw it.
"""
