-- Scheduled jobs (src/jobs/scheduler.ts): how far each job has run. Every
-- occurrence due at or before ran_through has run. On start and on every
-- tick an instance runs what fell due since (a service that was down catches
-- up); a store that has never run a job starts it at the time it first ran,
-- so nothing before that is replayed. Instances sharing a PostgreSQL run an
-- occurrence under the job's advisory lock and re-read this row first, so
-- each occurrence runs once.
CREATE TABLE job_watermarks (
  job          text PRIMARY KEY,
  ran_through  timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL
);
