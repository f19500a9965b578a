"""What is to be played: a tournament's schedule (``schedule``), its runs (``runs``), a match's pairs and its SPRT
(``pairs``, ``matches``). Pure where it can be (``schedule``, ``pairs``)."""
