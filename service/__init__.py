"""The REST service and the web pages: a Flask + flask-smorest app over the data floor (``store``), the bot link
(``botlink``), the rating arithmetic (``ratings``) and the runtime (``runtime``). It never imports the tournament
package: it enqueues jobs by dotted name (docs/architecture.md)."""
