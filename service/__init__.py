"""The REST service: a Flask + flask-smorest API over games, seats, hands, actions and events (STYLE.md
"service/"). It imports the engine; it never imports the tournament package (it enqueues jobs by dotted name)."""
