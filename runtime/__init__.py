"""What every process of the arena runs on, API and workers alike: its settings from the environment
(``runtime.settings``), the wake-ups of long polls (``runtime.wakeups``) and the tournament job queue
(``runtime.jobqueue``).
"""
