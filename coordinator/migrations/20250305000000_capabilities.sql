-- dancehall coordinator schema, version 4: what a worker can run (protocol version 3), so that
-- benchmark units go to workers that can run them, across coordinator restarts too.

-- The benchmark configurations the worker can run, space-separated; NULL when it did not say
-- (it may then take any unit).
ALTER TABLE workers ADD COLUMN bench_configs TEXT;
-- The worker machine's memory in bytes and its logical CPUs (0 = unknown).
ALTER TABLE workers ADD COLUMN memory_bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workers ADD COLUMN cpus INTEGER NOT NULL DEFAULT 0;
