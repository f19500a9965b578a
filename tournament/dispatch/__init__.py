"""Getting games to workers: the queue fed fairly (``feed``), a worker's slots (``slots``), its clock (``clock``),
the RQ worker itself (``worker``), a game job on a slot (``playing``), runs started when due (``starts``), lost jobs
recovered (``recovery``), and the process's context they share (``context``)."""
