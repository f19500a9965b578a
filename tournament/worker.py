"""``sorry-arena worker``: an RQ worker for tournament games, with the recovery of games whose worker died.

A ``SimpleWorker`` (MEASURED.md: forking costs a re-import per job; a job is a whole game, so no fork is needed),
with the job module imported before the first job. Its maintenance, which RQ runs between jobs every
``maintenance_interval`` seconds, also enqueues again the games whose lease ran out.
"""

from __future__ import annotations

from typing import Any

from rq import SimpleWorker

from service.queueing import QUEUE_NAME
from tournament import context, jobs


class ArenaWorker(SimpleWorker):
    def run_maintenance_tasks(self) -> None:
        super().run_maintenance_tasks()
        jobs.recover()


def run(*, burst: bool, with_scheduler: bool, maintenance_interval: int, name: str | None = None) -> bool:
    ctx = context.get()
    queue: Any = ctx.queue
    worker = ArenaWorker(
        [QUEUE_NAME],
        name=name,
        connection=queue.connection,
        maintenance_interval=maintenance_interval,
        worker_ttl=max(maintenance_interval + 15, 20),  # the idle wait is worker_ttl - 15: maintenance keeps pace
    )
    return bool(worker.work(burst=burst, with_scheduler=with_scheduler, logging_level="INFO"))
