"""Learning bots' side of the engine (docs/gym.md): environments and self-play data, built on the engine alone.

- :mod:`envs.aec`: the PettingZoo AEC environment of both games (every seat an agent), :mod:`envs.single`: the
  Gymnasium environment of one seat against engine bots; both need the ``gym`` extra
  (``pip install 'sorry-arena[gym]'``), and share :mod:`envs.seats` (observation, mask, reward, text),
  :mod:`envs.observations` (views as vectors) and :mod:`envs.actions` (the fixed action spaces);
- :mod:`envs.selfplay`: games between engine bots, one row per decision (``sorry-arena selfplay``), and
  :mod:`envs.datafiles`, their JSON lines and Parquet files (Parquet needs the ``parquet`` extra).

Nothing is imported here, so that the self-play data needs neither PettingZoo nor Gymnasium.
"""
